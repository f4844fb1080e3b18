// A merchant event's name is written once, in the catalogue (libs/domain/events/src/event-catalogue.ts);
// everywhere else it is either read from there or written where the compiler holds it to the catalogue's
// type (an argument, a return, a property typed MerchantEventType or a part of it). A name written
// anywhere else (a console word, a schema's enum, a string in SQL) is a copy no compiler checks, which
// a new or renamed event leaves behind: this rule refuses it.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export const CATALOGUE = 'libs/domain/events/src/event-catalogue.ts';

/** The catalogue's names, read from its source (a TypeScript module, which eslint cannot import). */
export const EVENT_NAMES = new Set(
  [
    ...readFileSync(new URL(`../../${CATALOGUE}`, import.meta.url), 'utf8').matchAll(/'([a-z]+\.[a-z_]+)'/g),
  ].map((match) => match[1]),
);

/** A name in single quotes inside a longer string: SQL's way to write it. */
const QUOTED = new RegExp(`'(${[...EVENT_NAMES].map((name) => name.replace('.', '\\.')).join('|')})'`);

/** A type made of catalogue names only (null and undefined aside, as in `MerchantEventType | null`). */
function ofCatalogue(type) {
  if (!type) return false;
  const parts = (type.isUnion() ? type.types : [type]).filter(
    (part) => !(part.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)),
  );
  return parts.length > 0 && parts.every((part) => part.isStringLiteral() && EVENT_NAMES.has(part.value));
}

/**
 * The compiler holds the literal to the catalogue: its contextual type (an argument, a return, a typed
 * property) is made of catalogue names, or it is compared with a value of such a type.
 */
function heldByCompiler(context, node) {
  const services = context.sourceCode.parserServices;
  if (!services?.program || !services.esTreeNodeToTSNodeMap) return false;
  const checker = services.program.getTypeChecker();
  const parent = node.parent;
  if (parent?.type === 'BinaryExpression' && ['===', '!==', '==', '!='].includes(parent.operator)) {
    const other = parent.left === node ? parent.right : parent.left;
    return ofCatalogue(checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(other)));
  }
  return ofCatalogue(checker.getContextualType(services.esTreeNodeToTSNodeMap.get(node)));
}

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    docs: { description: `A merchant event's name is written only in ${CATALOGUE}` },
    schema: [],
    messages: {
      copied:
        "'{{name}}' is a merchant event's name: read it from the catalogue (MERCHANT_EVENT_TYPES, GET /v1/event-types), or write it where its type is MerchantEventType.",
      quoted:
        "'{{name}}' is a merchant event's name in a string (SQL?): pass it in from a constant typed MerchantEventType.",
    },
  },
  create(context) {
    return {
      Literal(node) {
        if (typeof node.value !== 'string') return;
        if (EVENT_NAMES.has(node.value)) {
          // In a type (`type: 'consent.expired' | …`): held wherever the value meets the catalogue's type.
          if (node.parent?.type === 'TSLiteralType') return;
          if (!heldByCompiler(context, node))
            context.report({ node, messageId: 'copied', data: { name: node.value } });
          return;
        }
        const quoted = QUOTED.exec(node.value);
        if (quoted) context.report({ node, messageId: 'quoted', data: { name: quoted[1] } });
      },
      TemplateElement(node) {
        const quoted = QUOTED.exec(node.value.cooked ?? '');
        if (quoted) context.report({ node, messageId: 'quoted', data: { name: quoted[1] } });
      },
    };
  },
};
