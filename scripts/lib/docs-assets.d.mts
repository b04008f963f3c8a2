export const docsAssetsConfigPath: string;
export function copyDocsAssets(): void;
export function docsAssetsWorker(): {
  name: string;
  modules: true;
  script: string;
  compatibilityDate?: string;
  assets?: { directory: string; routerConfig?: Record<string, unknown>; assetConfig?: Record<string, unknown> };
};
