// The PDF thread of document sources (pdf.ts): extracts the text of one PDF at a time with unpdf
// (pdf.js), page by page, and stops once the text passes the limit it is given. Memory and time are
// bounded from the daemon's side, which terminates this thread. scripts/build.ts compiles this file
// into the binary as an entrypoint of its own.
// pdf.js itself (1.6 MB of JavaScript) is imported as a file, not as code: the build stores it
// gzipped like the other large assets (scripts/build.ts), and this thread inflates it and loads it as
// a module before its first PDF (about 40 ms more per thread than a bundled copy, for 1.1 MB less).
// @ts-expect-error: the module's types are pdf.js's, which has no default export; as a file its default is its path.
import pdfjsPath from "unpdf/pdfjs" with { type: "file" };
import { definePDFJSModule, getDocumentProxy } from "unpdf";
import { readEmbeddedFile } from "../../os/embedded-file";
import type { PdfJob, PdfOutcome } from "./pdf";

declare const self: Worker;

let pdfjsDefined: Promise<void> | undefined;
const pdfjsReady = () =>
  (pdfjsDefined ??= definePDFJSModule(async () => {
    const code = await readEmbeddedFile(pdfjsPath as unknown as string);
    const url = URL.createObjectURL(new Blob([code as Uint8Array<ArrayBuffer>], { type: "text/javascript" }));
    try {
      return await import(url);
    } finally {
      URL.revokeObjectURL(url);
    }
  }));

async function pagesOf(job: PdfJob): Promise<PdfOutcome> {
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  await pdfjsReady();
  try {
    doc = await getDocumentProxy(job.bytes);
  } catch (err) {
    return { problem: `not a readable PDF (${(err as Error).message})` };
  }
  try {
    const pages: string[] = [];
    let chars = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      // As unpdf's extractText joins a page: each item's text, a line break where pdf.js saw one.
      const text = content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
      page.cleanup();
      chars += text.length;
      if (chars > job.maxChars) return { problem: `more than ${job.maxChars.toLocaleString("en")} characters of text` };
      pages.push(text);
    }
    return { pages };
  } catch (err) {
    return { problem: `not a readable PDF (${(err as Error).message})` };
  } finally {
    await doc.loadingTask.destroy();
  }
}

self.onmessage = async (event: MessageEvent<PdfJob>) => {
  self.postMessage(await pagesOf(event.data));
};
