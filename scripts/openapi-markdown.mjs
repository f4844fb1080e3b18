// Renders the api's OpenAPI document as Markdown (docs/api-reference.md). Shared by
// scripts/docs-api.mjs, which writes the file, and test/api-reference-docs.e2e-spec.ts, which fails
// when the committed file is stale. Node built-ins only; deterministic output (sorted where order is
// not the document's own).

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const cell = (text) =>
  String(text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
const refName = (ref) => ref.split('/').pop();

function typeOf(schema) {
  if (!schema) return '';
  if (schema.$ref) return `[${refName(schema.$ref)}](#${refName(schema.$ref).toLowerCase()})`;
  if (schema.allOf) return schema.allOf.map(typeOf).join(' & ');
  if (schema.oneOf) return schema.oneOf.map(typeOf).join(' \\| ');
  if (schema.type === 'array') return `${typeOf(schema.items)}[]`;
  let type = schema.type ?? 'object';
  if (schema.format) type += ` (${schema.format})`;
  if (schema.enum) type += `: ${schema.enum.map((v) => `\`${v}\``).join(', ')}`;
  if (schema.nullable) type += ', nullable';
  return type;
}

function operationSection(method, path, op) {
  const lines = [`### ${method.toUpperCase()} ${path}`, ''];
  if (op.summary) lines.push(`**${op.summary}**`, '');
  if (op.description) lines.push(op.description, '');
  const security = (op.security ?? []).flatMap((s) => Object.keys(s));
  lines.push(
    `Authentication: ${security.length ? security.map((s) => `\`${s}\``).join(' or ') : 'none (public)'}`,
    '',
  );
  const params = op.parameters ?? [];
  if (params.length) {
    lines.push('| Parameter | In | Required | Type | Description |', '|---|---|---|---|---|');
    for (const p of params) {
      lines.push(
        `| \`${p.name}\` | ${p.in} | ${p.required ? 'yes' : 'no'} | ${cell(typeOf(p.schema))} | ${cell(p.description)} |`,
      );
    }
    lines.push('');
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body) lines.push(`Request body: ${typeOf(body)}`, '');
  lines.push('| Status | Description | Body |', '|---|---|---|');
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const schema = response.content?.['application/json']?.schema;
    lines.push(`| ${status} | ${cell(response.description)} | ${cell(typeOf(schema))} |`);
  }
  lines.push('');
  return lines;
}

function schemaSection(name, schema) {
  const lines = [`### ${name}`, ''];
  if (schema.description) lines.push(schema.description, '');
  const required = new Set(schema.required ?? []);
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length) {
    lines.push('| Field | Type | Required | Description |', '|---|---|---|---|');
    for (const [field, prop] of properties) {
      lines.push(
        `| \`${field}\` | ${cell(typeOf(prop))} | ${required.has(field) ? 'yes' : 'no'} | ${cell(prop.description)} |`,
      );
    }
  } else if (schema.discriminator?.mapping) {
    // A discriminated union: which schema each value of the discriminating property stands for.
    lines.push(`One of these, by \`${schema.discriminator.propertyName}\`:`, '');
    lines.push(`| \`${schema.discriminator.propertyName}\` | Schema |`, '|---|---|');
    for (const [value, ref] of Object.entries(schema.discriminator.mapping)) {
      lines.push(`| \`${value}\` | ${typeOf({ $ref: ref })} |`);
    }
  } else {
    lines.push(`Type: ${typeOf(schema)}`);
  }
  lines.push('');
  return lines;
}

/** The whole reference as one Markdown string. */
export function renderReference(document) {
  const lines = [
    '# API reference',
    '',
    '<!-- Generated from the OpenAPI document by `npm run docs:api`; do not edit by hand. -->',
    '',
    `${document.info?.title ?? ''} ${document.info?.version ? `(version ${document.info.version})` : ''}`.trim(),
    '',
    document.info?.description ?? '',
    '',
    '## Authentication',
    '',
    '| Scheme | Type | Description |',
    '|---|---|---|',
    ...Object.entries(document.components?.securitySchemes ?? {}).map(
      ([name, s]) => `| \`${name}\` | ${s.type} ${s.scheme ?? ''} | ${cell(s.description)} |`,
    ),
    '',
  ];
  const byTag = new Map();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push([method, path, op]);
    }
  }
  for (const tag of [...byTag.keys()].sort()) {
    lines.push(`## Routes: ${tag}`, '');
    for (const [method, path, op] of byTag.get(tag)) lines.push(...operationSection(method, path, op));
  }
  lines.push('## Schemas', '');
  for (const name of Object.keys(document.components?.schemas ?? {}).sort()) {
    lines.push(...schemaSection(name, document.components.schemas[name]));
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}
