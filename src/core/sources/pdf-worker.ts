// The PDF thread of document sources (pdf.ts): extracts the text of one PDF at a time with unpdf
// (pdf.js), page by page, and stops once the text passes the limit it is given. Memory and time are
// bounded from the daemon's side, which terminates this thread. scripts/build.ts compiles this file
// into the binary as an entrypoint of its own.
import { getDocumentProxy } from "unpdf";
import type { PdfJob, PdfOutcome } from "./pdf";

declare const self: Worker;

async function pagesOf(job: PdfJob): Promise<PdfOutcome> {
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
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
