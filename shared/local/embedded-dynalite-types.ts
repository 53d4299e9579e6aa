/**
 * dynalite's request type check (validations/index.js `checkTypes`, dynalite 4.0.0) and its attribute value
 * check (`validateAttributeValue`), with the same answers and errors, at a fraction of the cost per item.
 *
 * dynalite's `checkTypes` walks the request beside its type description. For every attribute value it builds
 * a new description of the AttributeValue structure (ten member types) and matches two type names against a
 * regular expression; `validateAttributeValue` then loops over fourteen comparisons per value. On a batch of
 * items that was about a third of the engine's CPU per item written. Here the type names are parsed once, the
 * AttributeValue description is built once, and the value shapes items are made of (one member: S, N, BOOL,
 * L, M) are checked directly; every other shape, valid or not, goes the general way, which is dynalite's code
 * (its error texts included). test/unit/embedded-dynalite-types.test.ts compares both with dynalite's on valid
 * and invalid requests. `installValidations` puts them in dynalite's validations module, so requests over
 * HTTP (dynalite's own handler) and in-process calls are checked alike.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type TypeSpec = string | { type?: string; children?: TypeSpec | Record<string, TypeSpec>; [rule: string]: unknown };
type Types = Record<string, TypeSpec>;
type Data = Record<string, unknown>;

interface ValidationsExports {
  checkTypes: (data: Data, types: Data) => Data;
  checkValidations: (data: Data, types: Data, custom: unknown, store: unknown) => void;
  validateAttributeValue: (value: Data) => string | undefined;
}

const validations = require('dynalite/validations') as ValidationsExports;
const dynaliteValidateAttributeValue = validations.validateAttributeValue;
const dynaliteCheckValidations = validations.checkValidations;

const ATTRIBUTE_MEMBERS: Record<string, TypeSpec> = {
  S: 'String',
  B: 'Blob',
  N: 'String',
  BOOL: 'Boolean',
  NULL: 'Boolean',
  BS: { type: 'List', children: 'Blob' },
  NS: { type: 'List', children: 'String' },
  SS: { type: 'List', children: 'String' },
  L: { type: 'List', children: 'AttrStruct<ValueStruct>' },
  M: { type: 'Map<AttributeValue>', children: 'AttrStruct<ValueStruct>' },
};
const ATTRIBUTE_STRUCTS: Record<string, TypeSpec> = {};
const VALUE_STRUCT_CHILD: TypeSpec = { type: 'AttrStruct<ValueStruct>' };

/** A type name split as dynalite's `/(.+?)<(.+)>$/` does (`Map<AttributeValue>`), once per name. */
const parsedNames = new Map<string, { base: string; subtype: string | undefined }>();
function parseName(name: string): { base: string; subtype: string | undefined } {
  let parsed = parsedNames.get(name);
  if (!parsed) {
    const open = name.indexOf('<', 1);
    parsed =
      open > 0 && name.endsWith('>') && open < name.length - 2
        ? { base: name.slice(0, open), subtype: name.slice(open + 1, -1) }
        : { base: name, subtype: undefined };
    parsedNames.set(name, parsed);
  }
  return parsed;
}

class SerializationError extends Error {
  readonly statusCode = 400;
  readonly body: { __type: string; Message: string };
  constructor(message: string) {
    super(message);
    this.body = { __type: 'com.amazon.coral.service#SerializationException', Message: message };
  }
}

const isObject = (value: unknown): value is Data => typeof value === 'object' && value !== null;

/**
 * An AttributeValue of one of the shapes items are made of, checked and copied as dynalite's walk would
 * (a new object holding the one member); undefined when it is another shape (the general walk answers).
 */
function plainAttribute(value: Data): Data | null | undefined {
  let member: string | undefined;
  for (const key in value) {
    if (member !== undefined) return undefined;
    member = key;
  }
  if (member === undefined) return undefined;
  const inner = value[member];
  switch (member) {
    case 'S':
    case 'N':
      return typeof inner === 'string' ? { [member]: inner } : undefined;
    case 'BOOL':
      return typeof inner === 'boolean' ? { BOOL: inner } : undefined;
    case 'L': {
      if (!Array.isArray(inner)) return undefined;
      const list = new Array<unknown>(inner.length);
      for (let index = 0; index < inner.length; index += 1) list[index] = attribute(inner[index], 'ValueStruct');
      return { L: list };
    }
    case 'M': {
      if (!isObject(inner) || Array.isArray(inner)) return undefined;
      const map: Data = {};
      for (const key of Object.keys(inner)) map[key] = attribute(inner[key], 'ValueStruct');
      return { M: map };
    }
    default:
      return undefined;
  }
}

/** dynalite's `AttrStruct<subtype>`. */
function attribute(value: unknown, subtype: string): unknown {
  if (value == null) return null;
  if (isObject(value) && !Array.isArray(value)) {
    const plain = plainAttribute(value);
    if (plain !== undefined) return plain;
  }
  let struct = ATTRIBUTE_STRUCTS[subtype];
  if (!struct) {
    struct = { type: `${subtype}<AttributeValue>`, children: ATTRIBUTE_MEMBERS };
    ATTRIBUTE_STRUCTS[subtype] = struct;
  }
  return checkType(value, struct);
}

export function checkTypes(data: Data, description: Data): Data {
  const types = description as Types;
  for (const key in data) if (!types[key] || data[key] == null) delete data[key];
  const checked: Data = {};
  for (const key of Object.keys(types)) {
    const value = checkType(data[key], types[key]!);
    if (value != null) checked[key] = value;
  }
  return checked;
}

function unexpectedCollection(kind: string): never {
  throw new SerializationError(`Unrecognized collection type class java.lang.${kind}`);
}

const PARAMETERIZED_CAST =
  "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and java.lang.Class are in module java.base of loader 'bootstrap')";

function checkType(value: unknown, spec: TypeSpec): unknown {
  if (value == null) return null;
  const rawChildren = typeof spec === 'string' ? undefined : spec.children;
  const children: TypeSpec | Record<string, TypeSpec> | undefined =
    typeof rawChildren === 'string'
      ? rawChildren === 'AttrStruct<ValueStruct>'
        ? VALUE_STRUCT_CHILD
        : { type: rawChildren }
      : rawChildren;
  const name = typeof spec === 'string' ? spec : (spec.type ?? '');
  const { base, subtype } = parseName(name);
  if (base === 'AttrStruct') return attribute(value, subtype ?? '');

  switch (base) {
    case 'Boolean':
      switch (typeof value) {
        case 'number':
          throw new SerializationError(
            `${value % 1 === 0 ? 'NUMBER_VALUE' : 'DECIMAL_VALUE'} cannot be converted to ${base}`,
          );
        case 'string': {
          const upper = value.toUpperCase();
          if (upper === 'TRUE' || upper === '1' || upper === 'YES') return true;
          if (upper === 'FALSE' || upper === '0' || upper === 'NO') return false;
          throw new SerializationError('Unexpected token received from parser');
        }
        case 'object':
          if (Array.isArray(value)) unexpectedCollection(base);
          throw new SerializationError('Start of structure or map found where not expected');
      }
      return value;
    case 'Short':
    case 'Integer':
    case 'Long':
    case 'Double':
      switch (typeof value) {
        case 'boolean':
          throw new SerializationError(`${value ? 'TRUE_VALUE' : 'FALSE_VALUE'} cannot be converted to ${base}`);
        case 'number':
          return base !== 'Double' ? Math.floor(value) : value;
        case 'string':
          throw new SerializationError(`STRING_VALUE cannot be converted to ${base}`);
        case 'object':
          if (Array.isArray(value)) unexpectedCollection(base);
          throw new SerializationError('Start of structure or map found where not expected');
      }
      return value;
    case 'String':
      switch (typeof value) {
        case 'boolean':
          throw new SerializationError(`${value ? 'TRUE_VALUE' : 'FALSE_VALUE'} cannot be converted to ${base}`);
        case 'number':
          throw new SerializationError(
            `${value % 1 === 0 ? 'NUMBER_VALUE' : 'DECIMAL_VALUE'} cannot be converted to ${base}`,
          );
        case 'object':
          if (Array.isArray(value)) unexpectedCollection(base);
          throw new SerializationError('Start of structure or map found where not expected');
      }
      return value;
    default:
      return checkContainer(value, base, subtype, children);
  }
}

function checkContainer(
  value: unknown,
  base: string,
  subtype: string | undefined,
  children: TypeSpec | Record<string, TypeSpec> | undefined,
): unknown {
  const kind = typeof value;
  const scalar = kind === 'boolean' || kind === 'number' || kind === 'string';
  switch (base) {
    case 'Blob': {
      if (kind === 'boolean' || kind === 'number')
        throw new SerializationError('only base-64-encoded strings are convertible to bytes');
      if (kind === 'object') {
        if (Array.isArray(value))
          throw new SerializationError('Unrecognized collection type class java.nio.ByteBuffer');
        throw new SerializationError('Start of structure or map found where not expected');
      }
      const text = value as string;
      if (text.length % 4)
        throw new SerializationError(
          `Base64 encoded length is expected a multiple of 4 bytes but found: ${text.length}`,
        );
      if (Buffer.from(text, 'base64').toString('base64') != text)
        throw new SerializationError('Invalid last non-pad Base64 character dectected');
      return value;
    }
    case 'List':
    case 'ParameterizedList':
      if (scalar) throw new SerializationError(base === 'List' ? 'Unexpected field type' : PARAMETERIZED_CAST);
      if (!Array.isArray(value)) throw new SerializationError('Start of structure or map found where not expected');
      return value.map((child: unknown) => checkType(child, children as TypeSpec));
    case 'ParameterizedMap':
    case 'Map': {
      if (scalar) throw new SerializationError(base === 'Map' ? 'Unexpected field type' : PARAMETERIZED_CAST);
      if (Array.isArray(value)) {
        if (base === 'ParameterizedMap')
          throw new SerializationError(
            'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>',
          );
        const named = subtype ?? '';
        throw new SerializationError(
          `Unrecognized collection type java.util.Map<java.lang.String, ${named.includes('.') ? named : `com.amazonaws.dynamodb.v20120810.${named}`}>`,
        );
      }
      const source = value as Data;
      const checked: Data = {};
      for (const key of Object.keys(source)) checked[key] = checkType(source[key], children as TypeSpec);
      return checked;
    }
    case 'ValueStruct':
    case 'FieldStruct':
      if (scalar)
        throw new SerializationError(
          base === 'ValueStruct' ? 'Unexpected value type in payload' : 'Unexpected field type',
        );
      if (Array.isArray(value))
        throw new SerializationError(`Unrecognized collection type class com.amazonaws.dynamodb.v20120810.${subtype}`);
      return checkTypes(value as Data, children as Types);
    default:
      throw new Error(`Unknown type: ${base}`);
  }
}

const validationViews = new WeakMap<object, Data>();

function withoutNamedChildren(spec: unknown): unknown {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return spec;
  const view: Data = {};
  for (const [key, value] of Object.entries(spec as Data))
    if (!(key === 'children' && typeof value === 'string')) view[key] = withoutNamedChildren(value);
  return view;
}

/**
 * The type description to hand dynalite's `checkValidations`: the same, less the `children` given by a type
 * name (`'AttrStruct<ValueStruct>'` under an item's map). Such children carry no validation, yet dynalite
 * visits every member under them (every attribute of every item) and builds its path for an error message
 * that cannot arise.
 */
export function validationView(types: Data): Data {
  let view = validationViews.get(types);
  if (!view) {
    view = withoutNamedChildren(types) as Data;
    validationViews.set(types, view);
  }
  return view;
}

/** Plain decimal numbers whose canonical form (big.js `toFixed()`) is themselves (but '-0', which is '0'). */
const CANONICAL_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?$/;
const MAX_CANONICAL_LENGTH = 38;

/** dynalite's `validateAttributeValue` on a value `checkTypes` returned (it normalises numbers in place). */
export function validateAttributeValue(value: Data): string | undefined {
  let member: string | undefined;
  for (const key in value) {
    if (member !== undefined) return dynaliteValidateAttributeValue(value);
    member = key;
  }
  switch (member) {
    case 'S':
    case 'BOOL':
      return undefined;
    case 'N': {
      const number = value.N;
      // At most 38 characters holds at most 38 significant digits and no exponent beyond DynamoDB's range.
      if (
        typeof number === 'string' &&
        number.length <= MAX_CANONICAL_LENGTH &&
        number !== '-0' &&
        CANONICAL_NUMBER.test(number)
      )
        return undefined;
      return dynaliteValidateAttributeValue(value);
    }
    case 'M': {
      const map = value.M as Record<string, Data>;
      for (const key in map) {
        const problem = validateAttributeValue(map[key]!);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'L': {
      const list = value.L as Data[];
      for (const element of list) {
        const problem = validateAttributeValue(element);
        if (problem) return problem;
      }
      return undefined;
    }
    default:
      return dynaliteValidateAttributeValue(value);
  }
}

/**
 * Makes dynalite use the checks above: its request handler (requests over HTTP) and its `custom` check of
 * each operation call them through the validations module, as the engine's in-process path does.
 */
export function installValidations(): void {
  validations.checkTypes = checkTypes;
  validations.checkValidations = (data, types, custom, store) =>
    dynaliteCheckValidations(data, validationView(types), custom, store);
  validations.validateAttributeValue = validateAttributeValue;
}
