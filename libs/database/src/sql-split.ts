// The statements of a migration as the expand/contract rule reads them (migration-compatibility.ts):
// split where Postgres would split them, each with its line and the comments written just before it.

export interface MigrationStatement {
  /** The statement's text without comments, its whitespace collapsed. */
  text: string;
  /** 1-based line of its first character in the file. */
  line: number;
  /** The comments between the previous statement and this one. */
  comments: string[];
}

/** Splits SQL into statements, honouring quotes, dollar quotes and comments. */
export function splitStatements(sql: string): MigrationStatement[] {
  const statements: MigrationStatement[] = [];
  let text = '';
  let comments: string[] = [];
  let line = 1;
  let startLine = 0;
  let i = 0;
  const take = (chunk: string) => {
    if (!text.trim() && chunk.trim()) startLine = line;
    text += chunk;
  };
  const advance = (chunk: string) => {
    for (const c of chunk) if (c === '\n') line += 1;
    i += chunk.length;
  };
  const until = (end: string, from: number) => {
    const at = sql.indexOf(end, from);
    return at < 0 ? sql.length : at + end.length;
  };
  while (i < sql.length) {
    const rest = sql.slice(i, i + 2);
    let chunk: string;
    if (rest === '--') {
      chunk = sql.slice(i, until('\n', i));
      comments.push(chunk.replace(/^--\s?/, '').trim());
      advance(chunk);
      continue;
    }
    if (rest === '/*') {
      chunk = sql.slice(i, until('*/', i + 2));
      comments.push(chunk.slice(2, -2).trim());
      advance(chunk);
      continue;
    }
    const c = sql[i];
    if (c === ';') {
      if (text.trim()) statements.push({ text: collapse(text), line: startLine, comments });
      text = '';
      comments = [];
      advance(c);
      continue;
    } else {
      chunk = quotedAt(sql, i) ?? c;
    }
    take(chunk);
    advance(chunk);
  }
  if (text.trim()) statements.push({ text: collapse(text), line: startLine, comments });
  return statements;
}

/** The quoted string, identifier or dollar-quoted body starting at `i`, if one does. */
function quotedAt(sql: string, i: number): string | undefined {
  const c = sql[i];
  const until = (end: string, from: number) => {
    const at = sql.indexOf(end, from);
    return at < 0 ? sql.length : at + end.length;
  };
  if (c === "'" || c === '"') {
    let end = i + 1;
    for (;;) {
      end = until(c, end);
      // A doubled quote is an escaped one, inside the string.
      if (sql[end] === c) end += 1;
      else break;
    }
    return sql.slice(i, end);
  }
  const tag = c === '$' ? /^\$[A-Za-z_]*\$/.exec(sql.slice(i, i + 64))?.[0] : undefined;
  return tag ? sql.slice(i, until(tag, i + tag.length)) : undefined;
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

/** An identifier as Postgres would name it: quoted ones as written, bare ones lower-cased. */
export const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
export const QUALIFIED = String.raw`(?:${IDENT}\.)?${IDENT}`;
export const unquote = (name: string) => {
  const last = name.match(new RegExp(IDENT, 'g'))!.at(-1)!;
  return last.startsWith('"') ? last.slice(1, -1).replaceAll('""', '"') : last.toLowerCase();
};

/** Identifiers between the first parentheses of `text` (a constraint's columns, or a CHECK's expression). */
export function identifiersIn(text: string): string[] {
  const open = text.indexOf('(');
  if (open < 0) return [];
  let depth = 0;
  let end = open;
  for (; end < text.length; end += 1) {
    if (text[end] === '(') depth += 1;
    if (text[end] === ')' && --depth === 0) break;
  }
  const inside = text.slice(open + 1, end).replace(/'(?:[^']|'')*'/g, '');
  const words = inside.match(new RegExp(IDENT, 'g')) ?? [];
  // Keywords and functions of an expression are bare words: a column of ours is always quoted.
  return words.filter((w) => w.startsWith('"')).map(unquote);
}

/** Splits on the commas outside parentheses and quotes (an ALTER TABLE's actions). */
export function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}
