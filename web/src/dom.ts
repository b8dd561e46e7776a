/**
 * Elements by id and made fresh: every piece of user text goes in as text nodes, never markup, and
 * shows the invisible characters that would otherwise change what it says.
 */

const SVG = 'http://www.w3.org/2000/svg';

/** The page's element of this id: the HTML names every one the modules use. */
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

/** Creates an element with text and classes; text always goes in as text, never markup. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string | number | null,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number> = {},
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

export function button(text: string, onClick: () => unknown, className?: string): HTMLButtonElement {
  const b = el('button', text, className);
  b.type = 'button';
  b.addEventListener('click', () => void onClick());
  return b;
}

/** A tick box with its label around it. */
export function checkBox(label: string, className: string): { label: HTMLLabelElement; box: HTMLInputElement } {
  const wrap = el('label', undefined, className);
  const box = el('input');
  box.type = 'checkbox';
  wrap.append(box, label);
  return { label: wrap, box };
}

/** Characters that show nothing but change what text is: each is shown as a marked code point. */
// The zero-width joiner stands apart: inside a character class it reads as joining its neighbours.
const INVISIBLE = /[\u00AD\u061C\u180E\u200B\u200C\u200E\u200F\u2060-\u2064\u206A-\u206F\u3164\uFEFF\uFFA0]|\u200D/gu;
const INVISIBLE_NAMES: Readonly<Record<string, string>> = {
  '\u00AD': 'soft hyphen',
  '\u061C': 'Arabic letter mark',
  '\u180E': 'Mongolian vowel separator',
  '\u200B': 'zero-width space',
  '\u200C': 'zero-width non-joiner',
  '\u200D': 'zero-width joiner',
  '\u200E': 'left-to-right mark',
  '\u200F': 'right-to-left mark',
  '\u2060': 'word joiner',
  '\uFEFF': 'zero-width no-break space',
};
const ASCII = /^[\x20-\x7E]?$/;

/**
 * Whether an invisible character should be shown. Joiners (U+200C, U+200D) belong inside emoji
 * sequences and many scripts; between plain ASCII characters, or at either end, they only hide.
 */
function hides(text: string, index: number): boolean {
  const c = text[index];
  if (c !== '\u200C' && c !== '\u200D') return true;
  return ASCII.test(text[index - 1] ?? '') && ASCII.test(text[index + 1] ?? '');
}

/** Puts user text into `node` as text nodes, each invisible character as a visible marker; returns how many. */
function textInto(node: HTMLElement, text: string): number {
  let shown = 0;
  let last = 0;
  for (const match of text.matchAll(INVISIBLE)) {
    if (!hides(text, match.index)) continue;
    node.append(text.slice(last, match.index));
    const code = `U+${(match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
    const marker = el('span', code, 'invisible');
    marker.title = `invisible character: ${INVISIBLE_NAMES[match[0]] ?? 'format character'} (${code})`;
    node.append(marker);
    last = match.index + match[0].length;
    shown += 1;
  }
  node.append(text.slice(last));
  return shown;
}

/** An element holding user text: direction from its own text, invisible characters shown. */
export function userText<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = el(tag, undefined, className);
  node.dir = 'auto';
  node.dataset.invisible = String(textInto(node, text));
  return node;
}

const bytes = (text: string) => new TextEncoder().encode(text).length;
export const size = (n: number): string => (n < 1024 ? `${n} bytes` : `${(n / 1024).toFixed(1)} KB`);
export const sizeOfText = (text: string): string => size(bytes(text));
export const memoriesOf = (n: number): string => `${n} ${n === 1 ? 'memory' : 'memories'}`;
