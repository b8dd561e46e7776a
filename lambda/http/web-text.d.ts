/** The page's stylesheet and HTML, imported as text by esbuild (lambda/http/web-files-bundled.ts). */
declare module '*.html' {
  const text: string;
  export default text;
}
declare module '*.css' {
  const text: string;
  export default text;
}
