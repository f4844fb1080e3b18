export const INSTALLED_RECORD: string;
export function packageUnits(pkg: string): string[];
export function enabledUnits(units: string[]): string[];
export function activeUnits(units: string[]): string[];
export function ensureDebianPackage(pkg: string, present: () => boolean, why: string): void;
