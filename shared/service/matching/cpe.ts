/**
 * CPE 2.3 formatted strings (cpe:2.3:part:vendor:product:version:update:edition:
 * language:sw_edition:target_sw:target_hw:other, `\` escapes) and CPE 2.2 URIs
 * (cpe:/part:vendor:product:version:update:edition:language, percent-encoded,
 * with the 2.3 extended attributes packed into edition as ~se~tsw~thw~other).
 * `*` (ANY) and `-` (NA) read as absent.
 */
export type Cpe = {
  part: 'a' | 'o' | 'h';
  vendor: string;
  product: string;
  version?: string;
  update?: string;
  targetSw?: string;
};

export function parseCpe(raw: string): Cpe | null {
  const value = raw.trim();
  if (/^cpe:2\.3:/i.test(value)) return fromFields(splitEscaped(value.slice('cpe:2.3:'.length)).map(unescape23), 8);
  if (/^cpe:\/[aoh]/i.test(value)) {
    const fields = value.slice('cpe:/'.length).split(':').map(decode22);
    const edition = fields[5];
    // 2.2 packs the 2.3 extended attributes into edition: ~sw_edition~target_sw~target_hw~other.
    const packed = edition?.startsWith('~') ? edition.split('~') : undefined;
    return fromFields(
      [...fields.slice(0, 5), packed ? '' : (edition ?? ''), fields[6] ?? '', packed?.[1] ?? '', packed?.[2] ?? ''],
      8,
    );
  }
  return null;
}

function fromFields(fields: string[], targetSwIndex: number): Cpe | null {
  const part = fields[0]?.toLowerCase();
  const vendor = present(fields[1]);
  const product = present(fields[2]);
  if ((part !== 'a' && part !== 'o' && part !== 'h') || vendor === undefined || product === undefined) return null;
  const version = present(fields[3]);
  const update = present(fields[4]);
  const targetSw = present(fields[targetSwIndex]);
  return {
    part,
    vendor: vendor.toLowerCase(),
    product: product.toLowerCase(),
    ...(version !== undefined && { version }),
    ...(update !== undefined && { update }),
    ...(targetSw !== undefined && { targetSw: targetSw.toLowerCase() }),
  };
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value === '' || value === '*' || value === '-' ? undefined : value;
}

/** Splits at `:` not preceded by a backslash escape. */
function splitEscaped(value: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '\\' && i + 1 < value.length) {
      current += ch + value[i + 1];
      i++;
    } else if (ch === ':') {
      out.push(current);
      current = '';
    } else current += ch ?? '';
  }
  out.push(current);
  return out;
}

function unescape23(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

function decode22(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
