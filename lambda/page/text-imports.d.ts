/** The page's stylesheet and HTML, imported as text by esbuild (files-bundled.ts). */
declare module '*.html' {
  const text: string;
  export default text;
}
declare module '*.css' {
  const text: string;
  export default text;
}
