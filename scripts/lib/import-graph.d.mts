/** Each source file of workers/*\/src and packages/*\/src → the project files it imports. */
export function importGraph(): Map<string, Set<string>>;
/** Groups of modules that import each other (paths relative to the repository's root). */
export function importCircles(graph?: Map<string, Set<string>>): string[][];
