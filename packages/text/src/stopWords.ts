/**
 * Words dropped by the tokenizer: English function words, plus URL scaffolding (`https`, `www`,
 * `com`) that every linked item would otherwise share. Words that carry meaning in code discussions
 * (`new`, `default`, `export`, `import`, `return`, `not`, `no`, `null`) are deliberately kept, and so are
 * the statement keywords `if`, `else` and `let`, which release notes and titles use as code ("Fix
 * comments in if", "parentheses around let"). Inside an identifier every word is kept (tokenize.ts).
 * Compared before stemming, against the lower-cased word.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'also', 'am', 'an', 'and', 'any', 'are',
  'as', 'at', 'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by',
  'can', 'could', 'did', 'do', 'does', 'doing', 'done', 'down', 'during', 'each', 'either',
  'etc', 'even', 'ever', 'every', 'few', 'for', 'from', 'further', 'had', 'has', 'have', 'having',
  'he', 'her', 'here', 'hers', 'herself', 'him', 'himself', 'his', 'how', 'however', 'i', 'ie', 'eg',
  'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'lets', 'like', 'may', 'me',
  'might', 'more', 'most', 'much', 'must', 'my', 'myself', 'now', 'of', 'off', 'on', 'once',
  'only', 'or', 'other', 'our', 'ours', 'ourselves', 'out', 'over', 'own', 'per', 'please', 'same',
  'shall', 'she', 'should', 'since', 'so', 'some', 'such', 'than', 'that', 'thats', 'the', 'their',
  'theirs', 'them', 'themselves', 'then', 'there', 'these', 'they', 'this', 'those', 'though',
  'through', 'thus', 'to', 'too', 'under', 'until', 'up', 'upon', 'us', 'very', 'via', 'was', 'we',
  'were', 'what', 'when', 'where', 'whether', 'which', 'while', 'who', 'whom', 'whose', 'why',
  'will', 'with', 'within', 'without', 'would', 'yet', 'you', 'your', 'yours', 'yourself',
  'yourselves', 'dont', 'doesnt', 'didnt', 'isnt', 'wasnt', 'arent', 'cant', 'wont', 'im', 'ive',
  'http', 'https', 'www', 'com',
]);
