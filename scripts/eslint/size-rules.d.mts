export const MAX_FILE_LINES: number;
export const MAX_FUNCTION_LINES: number;
export const SIZED_SOURCES: string[];
export const UNSIZED_SOURCES: string[];
export const LONG_FILES: Record<string, string>;
export const LONG_FUNCTIONS: Record<string, string>;
export const NEAR_LIMIT_LINES: number;
export const NEAR_LIMIT_FILES: Record<string, string>;
export function sizeBlocks(): object[];
