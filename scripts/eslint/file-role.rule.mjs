// A file that exports a Nest building block is named after its role, so that `*.controller.ts` finds
// every controller and a class is found from its name: RootModule lives in `*.module.ts`.
import { basename } from 'node:path';

/** The class-name suffix of each role and the file suffix it calls for. */
export const ROLE_SUFFIXES = {
  Controller: 'controller',
  Service: 'service',
  Repository: 'repository',
  Module: 'module',
  Processor: 'processor',
  Guard: 'guard',
  Interceptor: 'interceptor',
  Filter: 'filter',
};

/** Decorators that give a class its role whatever it is called (guards and interceptors are @Injectable). */
export const ROLE_DECORATORS = {
  Controller: 'controller',
  Module: 'module',
  Processor: 'processor',
  Catch: 'filter',
};

function decoratorName(decorator) {
  const expression =
    decorator.expression.type === 'CallExpression' ? decorator.expression.callee : decorator.expression;
  return expression.type === 'Identifier' ? expression.name : undefined;
}

/** The roles a class declaration claims, by decorator first, then by name. */
function rolesOf(node) {
  const roles = new Set();
  for (const decorator of node.decorators ?? []) {
    const role = ROLE_DECORATORS[decoratorName(decorator)];
    if (role) roles.add(role);
  }
  const suffix = Object.keys(ROLE_SUFFIXES).find((name) => node.id?.name.endsWith(name));
  if (suffix) roles.add(ROLE_SUFFIXES[suffix]);
  return roles;
}

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'suggestion',
    docs: {
      description:
        'A file exporting a controller, service, repository, module… is named *.<role>.ts, and such a file exports only that role',
    },
    schema: [],
    messages: {
      misnamed: '{{name}} is a {{role}}: its file should be named *.{{role}}.ts (not {{file}}).',
      roleless:
        '{{name}} is exported from a *.{{role}}.ts file: name it *{{suffix}} (or move it to a file of its own role).',
    },
  },
  create(context) {
    const file = basename(context.filename);
    const fileRole = Object.entries(ROLE_SUFFIXES).find(([, role]) => file.endsWith(`.${role}.ts`));
    const topLevelClasses = new Map();
    const exportedNames = [];
    const check = (node) => {
      // An abstract class is a base the role classes extend (JobProcessor), not a role of its own.
      if (node.abstract) return;
      const roles = rolesOf(node);
      // The other direction: a *.service.ts exports services. An error class it throws may sit beside it.
      if (fileRole && !roles.has(fileRole[1]) && !node.id?.name.endsWith('Error')) {
        context.report({
          node: node.id ?? node,
          messageId: 'roleless',
          data: { name: node.id?.name ?? 'default', role: fileRole[1], suffix: fileRole[0] },
        });
      }
      for (const role of roles) {
        if (!file.endsWith(`.${role}.ts`)) {
          context.report({
            node: node.id ?? node,
            messageId: 'misnamed',
            data: { name: node.id?.name ?? 'default', role, file },
          });
        }
      }
    };
    return {
      'Program > ClassDeclaration'(node) {
        if (node.id) topLevelClasses.set(node.id.name, node);
      },
      'ExportNamedDeclaration > ClassDeclaration': check,
      'ExportDefaultDeclaration > ClassDeclaration': check,
      // `class X {}` … `export { X }`, in either order
      'ExportNamedDeclaration[source=null] > ExportSpecifier'(node) {
        if (node.local.type === 'Identifier') exportedNames.push(node.local.name);
      },
      'Program:exit'() {
        for (const name of new Set(exportedNames)) {
          const declaration = topLevelClasses.get(name);
          if (declaration) check(declaration);
        }
      },
    };
  },
};
