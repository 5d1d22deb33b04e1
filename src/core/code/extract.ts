// One parsed file turned into facts: its symbols, imports, references (calls and type uses) and
// literals (docs/code.md#what-is-recorded). Tree-sitter itself picks out the nodes that may hold a
// fact, in one call (descendantsOfType): walking every node from JavaScript crosses into WebAssembly
// several times per node and cost more than the parse.
import { Node as TreeSitterNode, type Node, type Parser } from "web-tree-sitter";
import type { LanguageId } from "./grammars";
import { identifierParts } from "./names";
import { keepOutOfFtl } from "./short-run-jit";

type SymbolKind = "function" | "method" | "class" | "struct" | "interface" | "trait" | "type" | "enum" | "constant";

interface SymbolFact {
  name: string;
  kind: SymbolKind;
  /** Index of the enclosing symbol in the same file, or -1. */
  parent: number;
  /** The container by name when it is not an enclosing node (a Go receiver, a Rust impl type). */
  containerName: string | null;
  /** The words of the name and the container, for search (names.ts). */
  parts: string;
  startLine: number;
  endLine: number;
  signature: string;
  doc: string;
  /** The words of its body (code, comments, strings), for search: bodyWords. */
  body: string;
  exported: boolean;
}

interface ImportFact {
  /** The module as written: `./util`, `os.path`, `fmt`, `crate::store`. */
  source: string;
  /** The name taken from it: `default`, `*` (the whole module), or an exported name. */
  name: string;
  /** The local name it is bound to. */
  alias: string;
  line: number;
}

interface RefFact {
  /** Index of the enclosing symbol, or -1 at module level. */
  from: number;
  name: string;
  /** What the name was reached through (`this`, `self`, a module alias, an object), or null. */
  qualifier: string | null;
  kind: "call" | "ref";
  line: number;
}

interface LiteralFact {
  from: number;
  kind: "string" | "number";
  value: string;
  line: number;
}

export interface FileFacts {
  symbols: SymbolFact[];
  imports: ImportFact[];
  refs: RefFact[];
  literals: LiteralFact[];
}

const MAX_SIGNATURE = 200;
const MAX_DOC = 600;
/** Distinct words kept of a body: enough for a function's own vocabulary, bounded for a whole class. */
const MAX_BODY_WORDS = 300;
const MAX_STRING = 120;
const MIN_STRING = 3;
/** Numbers too common to say anything when shared. */
const TRIVIAL_NUMBERS = new Set(["0", "1", "2", "-1", "0.0", "1.0", "0.5", "10", "100"]);
const UPPER_CONSTANT = /^[A-Z][A-Z0-9_]*$/;

type Family = "js" | "python" | "go" | "rust";
const FAMILY: Record<LanguageId, Family> = {
  typescript: "js",
  tsx: "js",
  javascript: "js",
  python: "python",
  go: "go",
  rust: "rust",
};

/** Node types that may hold a fact, per family; no other node is materialised. */
const INTERESTING: Record<Family, string[]> = {
  js: [
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "abstract_class_declaration",
    "method_definition",
    "method_signature",
    "abstract_method_signature",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "variable_declarator",
    "public_field_definition",
    "call_expression",
    "new_expression",
    "type_identifier",
    "extends_clause",
    "import_statement",
    "export_statement",
    "string",
    "number",
  ],
  python: [
    "function_definition",
    "class_definition",
    "assignment",
    "call",
    "import_statement",
    "import_from_statement",
    "string",
    "integer",
    "float",
  ],
  go: [
    "function_declaration",
    "method_declaration",
    "type_spec",
    "const_spec",
    "call_expression",
    "type_identifier",
    "import_spec",
    "interpreted_string_literal",
    "int_literal",
    "float_literal",
  ],
  rust: [
    "function_item",
    "function_signature_item",
    "struct_item",
    "enum_item",
    "trait_item",
    "type_item",
    "const_item",
    "static_item",
    "impl_item",
    "call_expression",
    "type_identifier",
    "use_declaration",
    "string_literal",
    "integer_literal",
    "float_literal",
  ],
};

/** Leaf facts taken from the node's own text: a type name used (a ref unless it is a declaration's name), a literal. */
const LEAVES: Record<Family, Record<string, "ref" | "string" | "number">> = {
  js: { type_identifier: "ref", string: "string", number: "number" },
  python: { integer: "number", float: "number" },
  go: { type_identifier: "ref", interpreted_string_literal: "string", int_literal: "number", float_literal: "number" },
  rust: { type_identifier: "ref", string_literal: "string", integer_literal: "number", float_literal: "number" },
};

/** JS/TS declarations and the symbol each makes; all but the methods may be wrapped in an `export`. */
const JS_DECLARATION_KINDS: Record<string, SymbolKind | undefined> = {
  function_declaration: "function",
  generator_function_declaration: "function",
  class_declaration: "class",
  abstract_class_declaration: "class",
  interface_declaration: "interface",
  type_alias_declaration: "type",
  enum_declaration: "enum",
  method_definition: "method",
  method_signature: "method",
  abstract_method_signature: "method",
};

interface Found {
  name: string;
  kind: SymbolKind;
  exported: boolean;
  containerName?: string | null;
}

/** The state of one walk. */
class Walk {
  readonly facts: FileFacts = { symbols: [], imports: [], refs: [], literals: [] };
  /** Enclosing symbols as [symbol index, end byte], innermost last. */
  private readonly scopes: [number, number][] = [];
  /** Enclosing Rust impl blocks as [type name, end byte]. */
  private readonly impls: [string, number][] = [];
  /** Subtrees whose literals are not recorded (import sources), as their end byte. */
  private quietUntil = -1;

  constructor(readonly family: Family) {}

  current(offset: number): number {
    while (this.scopes.length > 0 && this.scopes[this.scopes.length - 1]![1] <= offset) this.scopes.pop();
    while (this.impls.length > 0 && this.impls[this.impls.length - 1]![1] <= offset) this.impls.pop();
    return this.scopes.length > 0 ? this.scopes[this.scopes.length - 1]![0] : -1;
  }

  visit(node: Node): void {
    const type = node.type;
    const from = this.current(node.startIndex);
    const leaf = LEAVES[this.family][type];
    if (leaf !== undefined) return this.leaf(leaf, node, from);
    switch (this.family) {
      case "js":
        return this.visitJs(type, node, from);
      case "python":
        return this.visitPython(type, node, from);
      case "go":
        return this.visitGo(type, node, from);
      case "rust":
        return this.visitRust(type, node, from);
    }
  }

  /** Most of the nodes visited: kept apart from the declarations so the engine compiles each small. */
  private leaf(leaf: "ref" | "string" | "number", node: Node, from: number): void {
    if (leaf === "ref") {
      if (!isNameOfParent(node)) this.ref(from, node.text, null, "ref", node);
    } else {
      const text = node.text;
      this.literal(from, leaf, leaf === "string" ? unquote(text) : text, node);
    }
  }

  private addSymbol(node: Node, found: Found, from: number, anchor: Node = node): void {
    const index = this.facts.symbols.length;
    const containerName = found.containerName ?? (from >= 0 ? this.facts.symbols[from]!.name : null);
    this.facts.symbols.push({
      name: found.name,
      kind: found.kind,
      parent: from,
      containerName,
      parts: [...identifierParts(found.name), ...(containerName ? identifierParts(containerName) : [])].join(" "),
      startLine: anchor.startPosition.row + 1,
      endLine: node.endPosition.row + 1,
      signature: signatureOf(node),
      doc: this.family === "python" ? pythonDocstring(node) : commentsAbove(anchor),
      body: "",
      exported: found.exported,
    });
    this.scopes.push([index, node.endIndex]);
  }

  /** `at`: the node whose line the reference is on. */
  private ref(from: number, name: string | undefined, qualifier: string | null, kind: "call" | "ref", at: Node): void {
    if (!name) return;
    this.facts.refs.push({ from, name, qualifier, kind, line: at.startPosition.row + 1 });
  }

  private literal(from: number, kind: "string" | "number", value: string | null | undefined, node: Node): void {
    if (value === null || value === undefined || node.startIndex < this.quietUntil) return;
    if (kind === "string" && (value.length < MIN_STRING || value.length > MAX_STRING || /[\n\r]/.test(value))) return;
    if (kind === "number" && TRIVIAL_NUMBERS.has(value)) return;
    this.facts.literals.push({ from, kind, value, line: node.startPosition.row + 1 });
  }

  // The JavaScript family's visits, one small method per kind of node: the engine compiles each
  // method on its own, and one method with every case compiled several times per thread for about
  // 0.2 s of CPU in a cold run on this repository.
  private visitJs(type: string, node: Node, from: number): void {
    switch (type) {
      case "call_expression":
        return this.jsCall(node, from);
      case "variable_declarator":
        return this.jsVariable(node, from);
      case "new_expression":
        return this.jsNew(node, from);
      case "extends_clause":
        return this.jsExtends(node, from);
      case "import_statement":
      case "export_statement":
        return this.jsImport(node);
      case "public_field_definition":
        return this.jsField(node, from);
      default:
        return this.jsDeclaration(type, node, from);
    }
  }

  private jsDeclaration(type: string, node: Node, from: number): void {
    const kind = JS_DECLARATION_KINDS[type];
    if (kind === undefined) return;
    if (kind === "method") return this.addSymbol(node, { name: nameOf(node), kind, exported: false }, from);
    const exported = node.parent?.type === "export_statement";
    this.addSymbol(node, { name: nameOf(node), kind, exported }, from, exported ? node.parent! : node);
  }

  private jsField(node: Node, from: number): void {
    const value = node.childForFieldName("value");
    if (value && isFunctionValue(value.type)) this.addSymbol(node, { name: nameOf(node, "name"), kind: "method", exported: false }, from);
  }

  private jsVariable(node: Node, from: number): void {
    const value = node.childForFieldName("value");
    const isFunction = value !== null && isFunctionValue(value.type);
    // Only functions and top-level constants are symbols: most declarators (locals) stop here,
    // before the parent lookups, which walk down from the root.
    if (!isFunction && from !== -1) return;
    const name = node.childForFieldName("name");
    if (name?.type !== "identifier") return;
    const declaration = node.parent;
    const isExported = declaration?.parent?.type === "export_statement";
    const outer = isExported ? declaration!.parent! : (declaration ?? node);
    if (isFunction) return this.addSymbol(node, { name: name.text, kind: "function", exported: isExported }, from, outer);
    const topLevel = outer.parent?.type === "program" || isExported;
    if (topLevel && declaration?.type === "lexical_declaration" && (isExported || UPPER_CONSTANT.test(name.text))) {
      this.addSymbol(node, { name: name.text, kind: "constant", exported: isExported }, from, outer);
    }
  }

  private jsCall(node: Node, from: number): void {
    const fn = node.childForFieldName("function");
    if (!fn) return;
    if (fn.type === "identifier") return this.ref(from, fn.text, null, "call", node);
    if (fn.type === "member_expression") {
      const object = fn.childForFieldName("object");
      this.ref(from, fn.childForFieldName("property")?.text, qualifierOf(object), "call", node);
    }
  }

  private jsNew(node: Node, from: number): void {
    const ctor = node.childForFieldName("constructor");
    if (ctor?.type === "identifier") this.ref(from, ctor.text, null, "call", node);
  }

  private jsExtends(node: Node, from: number): void {
    const value = node.childForFieldName("value");
    if (value?.type === "identifier") this.ref(from, value.text, null, "ref", value);
  }

  private jsImport(node: Node): void {
    const source = node.childForFieldName("source");
    if (!source) return;
    this.quietUntil = source.endIndex;
    const module = unquote(source.text);
    if (module === null) return;
    for (const [name, alias] of jsImportedNames(node)) this.facts.imports.push({ source: module, name, alias, line: node.startPosition.row + 1 });
  }

  private visitPython(type: string, node: Node, from: number): void {
    switch (type) {
      case "function_definition": {
        const inClass = from >= 0 && this.facts.symbols[from]!.kind === "class";
        const name = nameOf(node);
        const anchor = node.parent?.type === "decorated_definition" ? node.parent : node;
        return this.addSymbol(node, { name, kind: inClass ? "method" : "function", exported: from === -1 && !name.startsWith("_") }, from, anchor);
      }
      case "class_definition": {
        const name = nameOf(node);
        const anchor = node.parent?.type === "decorated_definition" ? node.parent : node;
        this.addSymbol(node, { name, kind: "class", exported: from === -1 && !name.startsWith("_") }, from, anchor);
        for (const base of node.childForFieldName("superclasses")?.namedChildren ?? []) {
          if (base?.type === "identifier") this.ref(this.current(base.startIndex), base.text, null, "ref", base);
        }
        return;
      }
      case "assignment": {
        const left = node.childForFieldName("left");
        if (from === -1 && left?.type === "identifier" && UPPER_CONSTANT.test(left.text) && node.parent?.parent?.type === "module") {
          this.addSymbol(node, { name: left.text, kind: "constant", exported: !left.text.startsWith("_") }, from);
        }
        return;
      }
      case "call": {
        const fn = node.childForFieldName("function");
        if (fn?.type === "identifier") return this.ref(from, fn.text, null, "call", node);
        if (fn?.type === "attribute") {
          return this.ref(from, fn.childForFieldName("attribute")?.text, qualifierOf(fn.childForFieldName("object")), "call", node);
        }
        return;
      }
      case "import_statement":
        for (const child of node.namedChildren) {
          if (!child) continue;
          const dotted = child.type === "aliased_import" ? child.childForFieldName("name") : child;
          const alias = child.type === "aliased_import" ? child.childForFieldName("alias")?.text : dotted?.text.split(".")[0];
          if (dotted && alias) this.facts.imports.push({ source: dotted.text, name: "*", alias, line: node.startPosition.row + 1 });
        }
        return;
      case "import_from_statement": {
        const module = node.childForFieldName("module_name")?.text;
        if (!module) return;
        for (const child of node.childrenForFieldName("name")) {
          if (!child) continue;
          const name = child.type === "aliased_import" ? child.childForFieldName("name")?.text : child.text;
          const alias = child.type === "aliased_import" ? child.childForFieldName("alias")?.text : name;
          if (name && alias) this.facts.imports.push({ source: module, name, alias, line: node.startPosition.row + 1 });
        }
        this.quietUntil = node.endIndex;
        return;
      }
      case "string":
        // A docstring is documentation, not a constant.
        if (node.parent?.type === "expression_statement" && node.parent.namedChildCount === 1) return;
        if (node.namedChildren.some((c) => c?.type === "interpolation")) return;
        return this.literal(from, "string", node.namedChildren.find((c) => c?.type === "string_content")?.text ?? null, node);
    }
  }

  private visitGo(type: string, node: Node, from: number): void {
    switch (type) {
      case "function_declaration": {
        const name = nameOf(node);
        return this.addSymbol(node, { name, kind: "function", exported: /^[A-Z]/.test(name) }, from);
      }
      case "method_declaration": {
        const name = nameOf(node);
        const receiver = node.childForFieldName("receiver")?.descendantsOfType("type_identifier")[0]?.text ?? null;
        return this.addSymbol(node, { name, kind: "method", exported: /^[A-Z]/.test(name), containerName: receiver }, from);
      }
      case "type_spec": {
        const name = nameOf(node);
        const body = node.childForFieldName("type")?.type;
        const kind: SymbolKind = body === "struct_type" ? "struct" : body === "interface_type" ? "interface" : "type";
        const anchor = node.parent?.type === "type_declaration" && node.parent.namedChildCount === 1 ? node.parent : node;
        return this.addSymbol(node, { name, kind, exported: /^[A-Z]/.test(name) }, from, anchor);
      }
      case "const_spec": {
        if (from !== -1) return;
        const anchor = node.parent?.type === "const_declaration" && node.parent.namedChildCount === 1 ? node.parent : node;
        for (const name of node.childrenForFieldName("name")) {
          if (!name) continue;
          this.addSymbol(node, { name: name.text, kind: "constant", exported: /^[A-Z]/.test(name.text) }, from, anchor);
        }
        return;
      }
      case "call_expression": {
        const fn = node.childForFieldName("function");
        if (fn?.type === "identifier") return this.ref(from, fn.text, null, "call", node);
        if (fn?.type === "selector_expression") {
          return this.ref(from, fn.childForFieldName("field")?.text, qualifierOf(fn.childForFieldName("operand")), "call", node);
        }
        return;
      }
      case "import_spec": {
        const path = unquote(node.childForFieldName("path")?.text ?? "");
        if (!path) return;
        this.quietUntil = node.endIndex;
        const alias = node.childForFieldName("name")?.text ?? path.split("/").pop()!;
        this.facts.imports.push({ source: path, name: "*", alias, line: node.startPosition.row + 1 });
        return;
      }
    }
  }

  private visitRust(type: string, node: Node, from: number): void {
    const exported = node.namedChildren.some((c) => c?.type === "visibility_modifier");
    const impl = this.impls.length > 0 ? this.impls[this.impls.length - 1]![0] : null;
    switch (type) {
      case "function_item":
      case "function_signature_item": {
        const inTrait = from >= 0 && this.facts.symbols[from]!.kind === "trait";
        const method = inTrait || (impl !== null && from === -1);
        return this.addSymbol(node, { name: nameOf(node), kind: method ? "method" : "function", exported, containerName: from === -1 ? impl : undefined }, from);
      }
      case "struct_item":
        return this.addSymbol(node, { name: nameOf(node), kind: "struct", exported }, from);
      case "enum_item":
        return this.addSymbol(node, { name: nameOf(node), kind: "enum", exported }, from);
      case "trait_item":
        return this.addSymbol(node, { name: nameOf(node), kind: "trait", exported }, from);
      case "type_item":
        return this.addSymbol(node, { name: nameOf(node), kind: "type", exported }, from);
      case "const_item":
      case "static_item":
        return this.addSymbol(node, { name: nameOf(node), kind: "constant", exported }, from);
      case "impl_item": {
        const target = node.childForFieldName("type");
        const name = target?.type === "generic_type" ? target.childForFieldName("type")?.text : target?.text;
        if (name) this.impls.push([name, node.endIndex]);
        return;
      }
      case "call_expression": {
        const fn = node.childForFieldName("function");
        if (fn?.type === "identifier") return this.ref(from, fn.text, null, "call", node);
        if (fn?.type === "scoped_identifier") {
          return this.ref(from, fn.childForFieldName("name")?.text, fn.childForFieldName("path")?.text ?? null, "call", node);
        }
        if (fn?.type === "field_expression") {
          return this.ref(from, fn.childForFieldName("field")?.text, qualifierOf(fn.childForFieldName("value")), "call", node);
        }
        return;
      }
      case "use_declaration": {
        this.quietUntil = node.endIndex;
        const argument = node.childForFieldName("argument");
        if (argument) for (const fact of rustUses(argument, "")) this.facts.imports.push({ ...fact, line: node.startPosition.row + 1 });
        return;
      }
    }
  }
}

function nameOf(node: Node, fieldName = "name"): string {
  return node.childForFieldName(fieldName)?.text ?? "<anonymous>";
}

/** Whether `node` is its parent's `name` field: a declaration's own name, not a use. */
function isNameOfParent(node: Node): boolean {
  return node.parent?.childForFieldName("name")?.startIndex === node.startIndex;
}

function isFunctionValue(type: string): boolean {
  return type === "arrow_function" || type === "function_expression" || type === "function" || type === "generator_function";
}

/** A short qualifier: an identifier or `this`/`self`; anything longer is an expression, kept as null. */
function qualifierOf(node: Node | null): string | null {
  if (!node) return null;
  const type = node.type;
  const text = node.text;
  if (type === "identifier" || type === "this" || type === "self" || type === "package_identifier") return text;
  return text.length <= 40 && /^[\w.]+$/.test(text) ? text : "<expr>";
}

/** A quoted literal's content, or null for a template with substitutions or an unknown quoting. */
function unquote(text: string): string | null {
  const q = text[0];
  if ((q === '"' || q === "'" || q === "`") && text.endsWith(q) && text.length >= 2) {
    const inner = text.slice(1, -1);
    return q === "`" && inner.includes("${") ? null : inner;
  }
  return null;
}

function jsImportedNames(node: Node): [string, string][] {
  const out: [string, string][] = [];
  const clause = node.namedChildren.find((c) => c?.type === "import_clause" || c?.type === "export_clause");
  if (!clause) return node.type === "import_statement" ? [] : [["*", "*"]];
  if (clause.type === "export_clause") {
    for (const spec of clause.namedChildren) {
      const name = spec?.childForFieldName("name")?.text;
      if (name) out.push([name, spec!.childForFieldName("alias")?.text ?? name]);
    }
    return out;
  }
  for (const part of clause.namedChildren) {
    if (!part) continue;
    if (part.type === "identifier") out.push(["default", part.text]);
    else if (part.type === "namespace_import") out.push(["*", part.namedChildren[0]?.text ?? "*"]);
    else if (part.type === "named_imports") {
      for (const spec of part.namedChildren) {
        const name = spec?.childForFieldName("name")?.text;
        if (name) out.push([name, spec!.childForFieldName("alias")?.text ?? name]);
      }
    }
  }
  return out;
}

/** `use a::b::{c, d as e}` as (source, name, alias) triples. */
function rustUses(node: Node, prefix: string): Omit<ImportFact, "line">[] {
  const join = (a: string, b: string) => (a && b ? `${a}::${b}` : a || b);
  switch (node.type) {
    case "scoped_identifier": {
      const path = join(prefix, node.childForFieldName("path")?.text ?? "");
      const name = node.childForFieldName("name")?.text ?? "";
      return [{ source: path, name, alias: name }];
    }
    case "identifier":
      return [{ source: prefix, name: node.text, alias: node.text }];
    case "use_as_clause": {
      const [inner] = rustUses(node.childForFieldName("path")!, prefix);
      const alias = node.childForFieldName("alias")?.text;
      return inner && alias ? [{ ...inner, alias }] : [];
    }
    case "scoped_use_list": {
      const path = join(prefix, node.childForFieldName("path")?.text ?? "");
      const list = node.childForFieldName("list");
      return list ? rustUses(list, path) : [];
    }
    case "use_list":
      return node.namedChildren.flatMap((c) => (c ? rustUses(c, prefix) : []));
    case "use_wildcard":
      return [{ source: join(prefix, node.namedChildren[0]?.text ?? ""), name: "*", alias: "*" }];
    default:
      return [];
  }
}

/** The declaration up to its body, on one line. */
function signatureOf(node: Node): string {
  const body = node.childForFieldName("body") ?? (node.type === "variable_declarator" ? node.childForFieldName("value")?.childForFieldName("body") : null);
  const text = body ? node.text.slice(0, body.startIndex - node.startIndex) : node.text.split("\n", 1)[0]!;
  const flat = text.replace(/\s+/g, " ").trim().replace(/[\s{:=>]+$/, (m) => (m.includes("=>") ? " =>" : ""));
  const withKeyword = node.type === "variable_declarator" ? `${node.parent?.text.split(/\s/, 1)[0] ?? "const"} ${flat}` : flat;
  return withKeyword.length > MAX_SIGNATURE ? `${withKeyword.slice(0, MAX_SIGNATURE - 1)}…` : withKeyword;
}

/** The comments directly above `anchor` (no blank line between), markers stripped. */
function commentsAbove(anchor: Node): string {
  const lines: string[] = [];
  let expectedEnd = anchor.startPosition.row - 1;
  for (let prev = anchor.previousNamedSibling; prev && /comment/.test(prev.type); prev = prev.previousNamedSibling) {
    if (prev.endPosition.row !== expectedEnd && !(prev.endPosition.row === expectedEnd + 1 && prev.type.includes("line"))) break;
    lines.unshift(prev.text);
    expectedEnd = prev.startPosition.row - 1;
  }
  return clip(stripComment(lines.join("\n")));
}

function pythonDocstring(node: Node): string {
  const first = node.childForFieldName("body")?.namedChildren[0];
  const string = first?.type === "expression_statement" ? first.namedChildren[0] : null;
  if (string?.type !== "string") return "";
  return clip(string.namedChildren.find((c) => c?.type === "string_content")?.text.trim() ?? "");
}

function stripComment(text: string): string {
  return text
    .split("\n")
    .map((l) =>
      l
        .trim()
        .replace(/^\/\*\*?|\*\/$/g, "")
        .replace(/^(\/\/\/?|\/\/!|#|\*)\s?/, "")
        .trim(),
    )
    .filter((l) => l !== "")
    .join("\n");
}

function clip(text: string): string {
  return text.length > MAX_DOC ? `${text.slice(0, MAX_DOC - 1)}…` : text;
}

/**
 * The words (identifier parts, lower case) of the lines after a symbol's declaration line up to its
 * end: what its code uses and its comments and strings say. A question in a developer's words meets
 * a function through these more often than through its name (`adminToken` inside the function that
 * checks it). `lineWords` holds each line's words, split once for every symbol that spans the line.
 */
function bodyWords(lineWords: (line: number) => string[], startLine: number, endLine: number): string {
  const words = new Set<string>();
  // startLine and endLine count from 1: line index startLine is the one after the declaration's first.
  for (let i = startLine; i < endLine && words.size < MAX_BODY_WORDS; i++) {
    for (const word of lineWords(i)) words.add(word);
  }
  return [...words].join(" ");
}

/** Parses `source` and extracts its facts; throws when tree-sitter gives no tree. */
export function extractFacts(parser: Parser, language: LanguageId, source: string): FileFacts {
  const tree = parser.parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree");
  try {
    const walk = new Walk(FAMILY[language]);
    // In document order, each node before its children: the enclosing symbols are known when a node is seen.
    for (const node of tree.rootNode.descendantsOfType(INTERESTING[FAMILY[language]])) walk.visit(node);
    const lines = source.split("\n");
    const split: string[][] = [];
    const lineWords = (i: number) =>
      (split[i] ??= identifierParts(lines[i]!).filter((part) => part.length > 1 && !/^\d+$/.test(part)));
    for (const s of walk.facts.symbols) s.body = bodyWords(lineWords, s.startLine, s.endLine);
    return walk.facts;
  } finally {
    tree.delete();
  }
}

// The walk runs on parsing threads for a few seconds at a time: see short-run-jit.ts.
keepOutOfFtl(Walk.prototype, TreeSitterNode.prototype, {
  nameOf,
  isNameOfParent,
  isFunctionValue,
  qualifierOf,
  unquote,
  jsImportedNames,
  rustUses,
  signatureOf,
  commentsAbove,
  pythonDocstring,
  stripComment,
  clip,
  bodyWords,
  extractFacts,
  identifierParts,
});
