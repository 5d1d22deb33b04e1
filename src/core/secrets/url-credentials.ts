// A provider's URL may carry credentials (`http://user:password@host`: basic auth through a proxy,
// or a token as the user name), which are sent but never shown: the llm's and the embedding
// provider's errors reach any caller of a recall and the log, and their URLs are stored.

/** `url` without its user name and password, and without trailing slashes; `unparsable` for a text that is no URL. */
export function withoutCredentials(url: string, unparsable: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString().replace(/\/+$/, "");
  } catch {
    return unparsable;
  }
}

/** What no error about a call to `url` may quote: the API key, and the URL's password as written and decoded. */
export function credentialValues(url: string, apiKey: string | undefined): string[] {
  const values = apiKey ? [apiKey] : [];
  let password = "";
  try {
    password = new URL(url).password;
  } catch {
    // Not a URL: the call fails before anything is sent.
  }
  if (password) values.push(password, decodedOr(password));
  return [...new Set(values)];
}

function decodedOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
