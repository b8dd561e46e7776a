/** Types of web/build.js, which plain Node runs (bin/build-package.js, the CDK's bundling hook). */
export declare const PAGE_ENTRY: string;
export declare const PAGE_SCRIPT_FILE: string;
export declare function buildPageScript(): Promise<string>;
export declare function writePageScript(): string;
