/** library -> the libraries it imports: `domain/<context>` or `<name>`. */
export type LibraryGraph = Record<string, string[]>;

export function specifiersOf(source: string): string[];
export function libraryOf(path: string): string | undefined;
export function libraryImportedBy(fromPath: string, specifier: string): string | undefined;
export function libraryGraph(options?: { root?: string; withSpecs?: boolean }): LibraryGraph;
export function findCycle(graph: LibraryGraph): string[] | undefined;
