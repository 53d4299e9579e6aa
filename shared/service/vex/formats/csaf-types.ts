/** CSAF 2.0 `csaf_vex` document types: the parts of the CSAF 2.0 JSON schema the generator writes. */
import type { CsafFlagLabel, CsafProductStatusGroup, CsafRemediationCategory } from './mapping';

export type CsafNoteCategory = 'description' | 'details' | 'faq' | 'general' | 'legal_disclaimer' | 'other' | 'summary';
export interface CsafNote {
  category: CsafNoteCategory;
  title?: string;
  text: string;
}
export interface CsafProductIdentificationHelper {
  purl?: string;
  cpe?: string;
}
export interface CsafFullProductName {
  name: string;
  product_id: string;
  product_identification_helper?: CsafProductIdentificationHelper;
}
export interface CsafBranch {
  category: 'vendor' | 'product_name' | 'product_version';
  name: string;
  branches?: CsafBranch[];
  product?: CsafFullProductName;
}
export interface CsafRelationship {
  category: 'default_component_of';
  full_product_name: CsafFullProductName;
  product_reference: string;
  relates_to_product_reference: string;
}
export interface CsafCvssV3 {
  version: '3.0' | '3.1';
  vectorString: string;
  baseScore: number;
  baseSeverity: 'NONE' | 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
}
export interface CsafCvssV2 {
  version: '2.0';
  vectorString: string;
  baseScore: number;
}
export interface CsafVulnerability {
  cve?: string;
  ids?: Array<{ system_name: string; text: string }>;
  cwe?: { id: string; name: string };
  notes: CsafNote[];
  product_status: Partial<Record<CsafProductStatusGroup, string[]>>;
  flags?: Array<{ label: CsafFlagLabel; product_ids: string[] }>;
  threats?: Array<{ category: 'impact' | 'exploit_status'; details: string; product_ids?: string[] }>;
  remediations?: Array<{ category: CsafRemediationCategory; details: string; product_ids: string[] }>;
  scores?: Array<{ products: string[]; cvss_v2?: CsafCvssV2; cvss_v3?: CsafCvssV3 }>;
  references?: Array<{ category: 'external'; summary: string; url: string }>;
}
export interface CsafRevision {
  date: string;
  number: string;
  summary: string;
}
export interface CsafVexDocument {
  document: {
    category: 'csaf_vex';
    csaf_version: '2.0';
    lang: 'en';
    distribution?: { tlp: { label: 'WHITE'; url: string } };
    publisher: {
      category: 'coordinator' | 'discoverer' | 'other' | 'translator' | 'user' | 'vendor';
      name: string;
      namespace: string;
      contact_details?: string;
      issuing_authority?: string;
    };
    title: string;
    notes: CsafNote[];
    references?: Array<{ category: 'self'; summary: string; url: string }>;
    tracking: {
      id: string;
      status: 'draft' | 'final';
      version: string;
      initial_release_date: string;
      current_release_date: string;
      revision_history: CsafRevision[];
      generator: { date: string; engine: { name: string; version: string } };
    };
  };
  product_tree: {
    branches: CsafBranch[];
    full_product_names?: CsafFullProductName[];
    relationships?: CsafRelationship[];
  };
  vulnerabilities: CsafVulnerability[];
}
