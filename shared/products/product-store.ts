/** Product items: conversion and access patterns (keys come from shared/data/keys). */
import type { ProductView } from '../schemas/products';
import { keys } from '../data/keys';
import { getItem, queryAll, type Item } from '../data/table-client';
import { NotFoundError } from '../errors';

export interface Product {
  id: string;
  teamId: string;
  name: string;
  slug: string;
  description: string | null;
  vendor: string | null;
  websiteUrl: string | null;
  repositoryUrl: string | null;
  createdAt: string;
  updatedAt: string;
  revision: number;
  /** Set when a cascading delete has started; the product is gone for readers from then on. */
  deletingAt: string | null;
}

export const PRODUCT_FIELDS = ['name', 'slug', 'description', 'vendor', 'websiteUrl', 'repositoryUrl'] as const;

export function toProduct(item: Item): Product {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    name: String(item.name),
    slug: String(item.slug),
    description: (item.description as string | undefined) ?? null,
    vendor: (item.vendor as string | undefined) ?? null,
    websiteUrl: (item.websiteUrl as string | undefined) ?? null,
    repositoryUrl: (item.repositoryUrl as string | undefined) ?? null,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    revision: Number(item.revision ?? 0),
    deletingAt: (item.deletingAt as string | undefined) ?? null,
  };
}

export function productItem(product: Product): Item {
  const { deletingAt: _deletingAt, ...fields } = product;
  return { ...keys.product(product.teamId, product.id), entity: 'Product', ...fields };
}

export function toProductView(product: Product): ProductView {
  return {
    id: product.id,
    name: product.name,
    slug: product.slug,
    description: product.description,
    vendor: product.vendor,
    websiteUrl: product.websiteUrl,
    repositoryUrl: product.repositoryUrl,
    created_at: product.createdAt,
    updated_at: product.updatedAt,
  };
}

export const productStore = {
  /** Includes products being deleted; callers decide. */
  async find(teamId: string, productId: string): Promise<Product | undefined> {
    const item = await getItem(keys.product(teamId, productId));
    return item ? toProduct(item) : undefined;
  },

  /** A product readers may see: not missing and not being deleted (404 otherwise). */
  async getLive(teamId: string, productId: string): Promise<Product> {
    const product = await productStore.find(teamId, productId);
    if (!product || product.deletingAt) throw new NotFoundError('Product');
    return product;
  },

  async listAll(teamId: string): Promise<Product[]> {
    const { pk, skPrefix } = keys.productPrefix(teamId);
    return (await queryAll({ pk, skPrefix })).map(toProduct).filter((product) => !product.deletingAt);
  },
};
