export const assetsDirectory: string;
export function copyDocsAssets(): void;
