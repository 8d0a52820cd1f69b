// The search page of rag-retrieval: streams POST /v1/retrieve (text/event-stream) into result
// cards. Plain browser JavaScript, no build step, nothing loaded from outside the service.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const form = $('search-form');
  const question = $('question');
  const topK = $('top-k');
  const threshold = $('threshold');
  const thresholdValue = $('threshold-value');
  const chapter = $('chapter');
  const collection = $('collection');
  const collectionControl = $('collection-control');
  const apiKey = $('api-key');
  const settings = $('settings');
  const statusLine = $('status');
  const errorBox = $('error');
  const results = $('results');
  const timings = $('timings');
  const context = $('context');
  const contextText = $('context-text');
  const copyButton = $('copy-context');
  const searchButton = $('search-button');

  const API_KEY_STORAGE = 'rag-retrieval.api-key';
  const DEFAULT_TOP_K = '5';
  const DEFAULT_THRESHOLD = '0.1';
  const LONG_TEXT_CHARS = 700;

  // What each error code means to a reader; the service's own message is shown beneath it.
  const MESSAGES = {
    EMPTY_QUERY: 'Type a question first.',
    QUERY_TOO_LONG: 'That question is too long. Shorten it and search again.',
    INVALID_TOP_K: 'The number of results is not one the service accepts.',
    INVALID_THRESHOLD: 'The minimum score must be a number between 0 and 1.',
    INVALID_REQUEST: 'The service could not use this request.',
    UNAUTHORIZED: 'This service needs a valid API key. Enter it under "API key" at the top of the page.',
    NOT_FOUND: 'The service has nothing at that address. It may be an older version than this page.',
    COLLECTION_NOT_FOUND: 'This collection is not in the search index (yet). Pick another one, or ingest it first.',
    PAYLOAD_TOO_LARGE: 'The request is too large for the service. Shorten the question.',
    UNSUPPORTED_MEDIA_TYPE: 'The service did not accept the format of the request.',
    RATE_LIMIT: (wait) => `The embedding provider is limiting requests right now. Try again ${wait}.`,
    UPSTREAM_ERROR: 'A service behind the search (embedding provider or vector store) gave an unexpected answer.',
    CONNECTION_ERROR: 'The search cannot reach the vector store or the embedding provider at the moment.',
    OVERLOADED: (wait) => `The service is busy. Try again ${wait}.`,
    TIMEOUT: 'The search took too long and was stopped. Try again, or ask for fewer results.',
    STREAM_DROPPED: 'The connection dropped before all results arrived; what is shown may be incomplete.',
    NETWORK: 'The service cannot be reached. Check the connection and try again.',
  };

  // ---------------------------------------------------------------------------------------
  // Reading a text/event-stream response with fetch. Copy this function into your own UI:
  // frames end with a blank line; in a frame, "event:" names the event and the "data:" lines,
  // joined with "\n", carry its JSON. onEvent runs for each frame as soon as it is complete.
  async function readEventStream(body, onEvent) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer = (buffer + decoder.decode(value, { stream: true })).replace(/\r\n/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        const data = [];
        for (const line of frame.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length) onEvent(event, JSON.parse(data.join('\n')));
      }
    }
  }
  // ---------------------------------------------------------------------------------------

  function requestHeaders(extra) {
    const headers = { ...extra };
    const key = sessionStorage.getItem(API_KEY_STORAGE);
    if (key) headers['X-API-Key'] = key;
    return headers;
  }

  // An HTTP error before the stream starts carries {"error": {...}}; anything else (a proxy's
  // HTML page, say) is described by its status.
  async function errorOf(response) {
    let error = null;
    try {
      error = (await response.json()).error;
    } catch (ignored) { /* not JSON */ }
    if (!error || !error.code) {
      error = { code: `HTTP_${response.status}`, message: `The service answered ${response.status} ${response.statusText}.` };
    }
    const seconds = Number(response.headers.get('Retry-After'));
    return { ...error, retryAfter: Number.isFinite(seconds) && seconds > 0 ? seconds : null };
  }

  // ---------------------------------------------------------------- search

  let running = null; // the AbortController of the search in progress

  async function search(params) {
    if (running) running.abort();
    const controller = new AbortController();
    running = controller;
    const isCurrent = () => running === controller;

    startSearch(params);
    const terms = termPattern(params.q);
    const body = {
      query: params.q,
      top_k: topKValue(params.top_k),
      score_threshold: Number(params.score_threshold),
      include_context: true,
    };
    if (params.chapter) body.filter = { chapter: params.chapter };
    if (params.collection) body.collection = params.collection;

    let finished = false;
    const onEvent = (event, data) => {
      if (!isCurrent()) return;
      if (event === 'meta') statusLine.textContent = 'Searching the book…';
      else if (event === 'chunk') results.append(card(data, terms));
      else if (event === 'context') showContext(data);
      else if (event === 'done') { finished = true; showDone(data, params); }
      else if (event === 'error') { finished = true; showError(data.error || data); }
    };

    try {
      const response = await fetch('v1/retrieve', {
        method: 'POST',
        headers: requestHeaders({ 'Content-Type': 'application/json', Accept: 'text/event-stream' }),
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      if (!response.ok) {
        const error = await errorOf(response);
        if (isCurrent()) showError(error);
        return;
      }
      if ((response.headers.get('Content-Type') || '').includes('application/json')) {
        // A proxy that strips Accept gets the plain JSON answer: replay it as events.
        const json = await response.json();
        onEvent('meta', json);
        (json.results || []).forEach((chunk) => onEvent('chunk', chunk));
        onEvent('done', json);
      } else {
        await readEventStream(response.body, onEvent);
      }
      if (!finished && isCurrent()) showError({ code: 'STREAM_DROPPED' });
    } catch (err) {
      if (controller.signal.aborted || !isCurrent()) return;
      showError({ code: results.childElementCount > 0 || finished ? 'STREAM_DROPPED' : 'NETWORK' });
    } finally {
      if (isCurrent()) {
        running = null;
        searchButton.textContent = 'Search';
        results.removeAttribute('aria-busy');
      }
    }
  }

  // Whole numbers go as numbers; anything else goes as typed so the service's INVALID_TOP_K
  // message explains it.
  function topKValue(raw) {
    const text = String(raw ?? '').trim();
    if (text === '') return undefined;
    return /^-?\d+$/.test(text) ? Number(text) : text;
  }

  function startSearch(params) {
    document.body.dataset.state = 'searching';
    $('examples').hidden = true;
    errorBox.hidden = true;
    errorBox.removeAttribute('data-code');
    results.replaceChildren();
    results.setAttribute('aria-busy', 'true');
    timings.hidden = true;
    context.hidden = true;
    contextText.textContent = '';
    statusLine.textContent = 'Searching…';
    searchButton.textContent = 'Searching…';
    document.title = params.q.trim() ? `${params.q.trim()} · Search the book` : 'Search the book · rag-retrieval';
  }

  function showDone(done, params) {
    document.body.dataset.state = 'done';
    const count = done.count ?? results.childElementCount;
    const min = Number(params.score_threshold).toFixed(2);
    if (count === 0) {
      statusLine.textContent = `No passage scored ${min} or more. Lower the minimum score, pick another chapter or rephrase the question.`;
    } else if (done.status === 'partial') {
      statusLine.textContent = `Found ${plural(count, 'passage')}; no others scored ${min} or more.`;
    } else {
      statusLine.textContent = `Found ${plural(count, 'passage')}.`;
    }
    const t = done.timings_ms || {};
    const parts = [];
    if (t.embed != null) parts.push(`embed ${ms(t.embed)}`);
    if (t.search != null) parts.push(`search ${ms(t.search)}`);
    if (done.execution_time_ms != null) parts.push(`total ${ms(done.execution_time_ms)}`);
    timings.textContent = parts.length ? `Timings: ${parts.join(' · ')}` : '';
    timings.hidden = parts.length === 0;
  }

  function showError(error) {
    document.body.dataset.state = 'error';
    const code = error.code || 'UNKNOWN';
    const wait = error.retryAfter ? `in ${plural(error.retryAfter, 'second')}` : 'in a moment';
    const known = MESSAGES[code];
    const title = typeof known === 'function' ? known(wait) : known || error.message || 'Something went wrong.';
    errorBox.dataset.code = code;
    $('error-title').textContent = title;
    const detail = error.message && error.message !== title ? `The service said: ${error.message}` : '';
    $('error-detail').textContent = detail;
    $('error-detail').hidden = !detail;
    errorBox.hidden = false;
    statusLine.textContent = '';
    if (code === 'UNAUTHORIZED') settings.open = true;
  }

  // ---------------------------------------------------------------- result cards

  function card(chunk, terms) {
    const rank = chunk.rank;
    const score = Number(chunk.score);
    const article = el('article', 'card');
    article.dataset.rank = String(rank);
    article.dataset.score = String(chunk.score);
    if (chunk.chapter) article.dataset.chapter = chunk.chapter;
    article.setAttribute('aria-labelledby', `card-${rank}-title`);

    const head = el('header', 'card-head');
    const badge = el('span', 'rank', String(rank));
    badge.setAttribute('aria-label', `Rank ${rank}`);
    const titles = el('div', 'card-titles');
    const title = el('h3');
    highlight(title, chunk.page_title || chunk.section || 'Untitled passage', terms);
    title.id = `card-${rank}-title`;
    titles.append(title);
    const where = el('p', 'where');
    if (chunk.chapter) where.append(el('span', 'tag tag-chapter', chunk.chapter));
    if (chunk.section) where.append(el('span', 'tag tag-section', chunk.section));
    if (where.childElementCount) titles.append(where);

    const scoreBox = el('div', 'score');
    scoreBox.title = 'Similarity to the question (1 = identical)';
    const bar = el('span', 'score-bar');
    bar.setAttribute('aria-hidden', 'true');
    const fill = el('span', 'score-fill');
    fill.style.width = `${Math.round(Math.max(0, Math.min(1, score)) * 100)}%`;
    bar.append(fill);
    const number = el('span', 'score-num', score.toFixed(3));
    number.setAttribute('aria-label', `score ${score.toFixed(3)}`);
    scoreBox.append(bar, number);
    head.append(badge, titles, scoreBox);

    const text = el('div', 'chunk-text');
    text.id = `card-${rank}-text`;
    highlight(text, chunk.text || '', terms);

    const foot = el('footer', 'card-foot');
    if ((chunk.text || '').length > LONG_TEXT_CHARS) {
      text.classList.add('collapsed');
      const toggle = el('button', 'link-button', 'Show the whole passage');
      toggle.type = 'button';
      toggle.setAttribute('aria-expanded', 'false');
      toggle.setAttribute('aria-controls', text.id);
      toggle.addEventListener('click', () => {
        const open = text.classList.toggle('collapsed') === false;
        toggle.setAttribute('aria-expanded', String(open));
        toggle.textContent = open ? 'Show less' : 'Show the whole passage';
      });
      foot.append(toggle);
    }
    if (chunk.truncated) foot.append(el('span', 'muted', 'Cut at the service limit.'));
    const source = sourceLink(chunk.source_url);
    if (source) foot.append(source);

    article.append(head, text);
    if (foot.childElementCount) article.append(foot);
    return article;
  }

  // Only absolute http(s) addresses become links: a payload could hold "javascript:" URLs, and a
  // relative source (a folder ingested without --base-url) names a file, not a page of this site.
  function sourceLink(raw) {
    if (!raw) return null;
    let url = null;
    try {
      url = new URL(raw);
    } catch (ignored) { /* relative, or not a URL */ }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      return el('span', 'source', raw);
    }
    const link = el('a', 'source', `${url.host}${url.pathname}`.replace(/\/$/, ''));
    link.href = url.href;
    link.rel = 'noopener noreferrer';
    link.target = '_blank';
    return link;
  }

  const STOP_WORDS = new Set(('a an and are as at be by can could do does for from has have how i if in into is it '
    + 'its me my not of on or should so than that the their them then there these this to was we were what when '
    + 'where which while who why will with would you your').split(' '));

  // The question's words as one pattern; a word also marks its longer forms (node -> nodes).
  function termPattern(query) {
    const words = (query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu) || [])
      .filter((w) => w.length > 1 && !STOP_WORDS.has(w));
    if (!words.length) return null;
    const unique = [...new Set(words)].sort((a, b) => b.length - a.length);
    const escaped = unique.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})[\\p{L}]*`, 'giu');
  }

  // Builds text nodes and <mark> elements: chunk text is never parsed as HTML, so markup in it
  // shows as the characters it is.
  function highlight(parent, text, pattern) {
    if (!pattern) {
      parent.textContent = text;
      return;
    }
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      parent.append(text.slice(last, match.index), el('mark', null, match[0]));
      last = match.index + match[0].length;
    }
    parent.append(text.slice(last));
  }

  function showContext(ctx) {
    contextText.textContent = ctx.formatted_text || '';
    const sources = (ctx.sources || []).length;
    $('context-meta').textContent = `${plural(ctx.chunk_count ?? 0, 'passage')} · `
      + `${(ctx.total_chars ?? contextText.textContent.length).toLocaleString()} characters · `
      + `${plural(sources, 'source')}. Paste it into a prompt as the material to answer from.`;
    context.hidden = !contextText.textContent;
  }

  async function copyContext() {
    const text = contextText.textContent;
    try {
      await navigator.clipboard.writeText(text);
    } catch (ignored) {
      // navigator.clipboard needs https or localhost; fall back to a selection copy.
      const range = document.createRange();
      range.selectNodeContents(contextText);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      document.execCommand('copy');
    }
    copyButton.textContent = 'Copied';
    statusLine.textContent = 'The context is on the clipboard.';
    setTimeout(() => { copyButton.textContent = 'Copy context'; }, 2000);
  }

  // ---------------------------------------------------------------- chapter filter

  async function loadChapters() {
    chapter.dataset.facets = 'loading';
    try {
      const query = new URLSearchParams({ key: 'chapter' });
      if (collection.value) query.set('collection', collection.value);
      const response = await fetch(`v1/facets?${query}`, { headers: requestHeaders({ Accept: 'application/json' }) });
      if (!response.ok) {
        const error = await errorOf(response);
        chapter.dataset.facets = 'failed';
        chapter.title = error.code === 'UNAUTHORIZED'
          ? 'Enter the API key to list the chapters.' : 'The chapters could not be listed.';
        return;
      }
      const { values = [] } = await response.json();
      const selected = chapter.value;
      const options = [new Option('All chapters', '')];
      for (const { value, count } of values) {
        options.push(new Option(`${value} (${count})`, value));
      }
      chapter.replaceChildren(...options);
      selectChapter(selected);
      chapter.removeAttribute('title');
      chapter.dataset.facets = 'loaded';
    } catch (ignored) {
      chapter.dataset.facets = 'failed';
    }
  }

  // ---------------------------------------------------------------- collection picker

  // The picker appears when there is a choice: more than one collection, or a linked one.
  async function loadCollections() {
    collection.dataset.collections = 'loading';
    try {
      const response = await fetch('v1/collections', { headers: requestHeaders({ Accept: 'application/json' }) });
      if (!response.ok) {
        collection.dataset.collections = 'failed';
        collectionControl.hidden = !collection.value;
        return;
      }
      const { collections = [] } = await response.json();
      const selected = collection.value;
      const options = [new Option('Default collection', '')];
      for (const { name, points } of collections) {
        options.push(new Option(`${name} (${plural(points, 'passage')})`, name));
      }
      collection.replaceChildren(...options);
      selectCollection(selected);
      collectionControl.hidden = collections.length < 2 && !selected;
      collection.dataset.collections = 'loaded';
    } catch (ignored) {
      collection.dataset.collections = 'failed';
    }
  }

  function selectCollection(value) {
    if (value && ![...collection.options].some((o) => o.value === value)) {
      collection.append(new Option(value, value));
    }
    collection.value = value || '';
    if (value) collectionControl.hidden = false;
  }

  // A linked chapter is kept even before (or without) the facet list.
  function selectChapter(value) {
    if (value && ![...chapter.options].some((o) => o.value === value)) {
      chapter.append(new Option(value, value));
    }
    chapter.value = value || '';
  }

  // ---------------------------------------------------------------- form <-> address bar

  function formParams() {
    return {
      q: question.value, top_k: topK.value, score_threshold: threshold.value, chapter: chapter.value,
      collection: collection.value,
    };
  }

  function urlParams() {
    const p = new URLSearchParams(location.search);
    return {
      q: p.get('q') ?? '',
      top_k: p.get('top_k') ?? DEFAULT_TOP_K,
      score_threshold: p.get('score_threshold') ?? DEFAULT_THRESHOLD,
      chapter: p.get('chapter') ?? '',
      collection: p.get('collection') ?? '',
    };
  }

  function fillForm(params) {
    question.value = params.q;
    topK.value = params.top_k;
    threshold.value = params.score_threshold;
    showThreshold();
    selectCollection(params.collection);
    selectChapter(params.chapter);
  }

  function urlOf(params) {
    const p = new URLSearchParams({ q: params.q, top_k: params.top_k });
    if (Number(params.score_threshold) !== Number(DEFAULT_THRESHOLD)) p.set('score_threshold', params.score_threshold);
    if (params.chapter) p.set('chapter', params.chapter);
    if (params.collection) p.set('collection', params.collection);
    return `${location.pathname}?${p}`;
  }

  // A new question is a new history entry; a changed control on the same question replaces it.
  function runFromForm(replace) {
    const params = formParams();
    const url = urlOf(params);
    if (url !== location.pathname + location.search) {
      if (replace) history.replaceState(params, '', url);
      else history.pushState(params, '', url);
    }
    search(params);
  }

  function showThreshold() {
    thresholdValue.textContent = Number(threshold.value).toFixed(2);
  }

  // ---------------------------------------------------------------- helpers

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }

  function plural(n, word) {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
  }

  function ms(value) {
    return `${Number(value) < 10 ? Number(value).toFixed(1) : Math.round(Number(value))} ms`;
  }

  // ---------------------------------------------------------------- wiring

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    runFromForm(false);
  });

  // Changing a control re-runs the current question, so the filter acts at once.
  for (const control of [topK, threshold, chapter]) {
    control.addEventListener('change', () => {
      if (new URLSearchParams(location.search).has('q') && question.value.trim()) runFromForm(true);
    });
  }
  threshold.addEventListener('input', showThreshold);

  // Another collection has other chapters: the filter starts over, and the question runs again.
  collection.addEventListener('change', () => {
    selectChapter('');
    loadChapters();
    if (question.value.trim()) {
      runFromForm(true);
    } else {
      const p = new URLSearchParams();
      if (collection.value) p.set('collection', collection.value);
      history.replaceState(formParams(), '', p.size ? `${location.pathname}?${p}` : location.pathname);
    }
  });

  document.querySelectorAll('[data-example]').forEach((button) => {
    button.addEventListener('click', () => {
      question.value = button.dataset.example;
      runFromForm(false);
    });
  });

  copyButton.addEventListener('click', copyContext);

  let facetTimer = null;
  apiKey.value = sessionStorage.getItem(API_KEY_STORAGE) || '';
  apiKey.addEventListener('input', () => {
    const key = apiKey.value.trim();
    if (key) sessionStorage.setItem(API_KEY_STORAGE, key);
    else sessionStorage.removeItem(API_KEY_STORAGE);
    clearTimeout(facetTimer);
    facetTimer = setTimeout(() => { loadCollections(); loadChapters(); }, 300);
  });

  // "/" jumps to the search box, as on many documentation sites.
  document.addEventListener('keydown', (event) => {
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement?.tagName || '');
    if (event.key === '/' && !typing) {
      event.preventDefault();
      question.focus();
      question.select();
    }
  });

  window.addEventListener('popstate', () => {
    const params = urlParams();
    const shownCollection = collection.value;
    fillForm(params);
    if (collection.value !== shownCollection) loadChapters();
    if (params.q.trim()) {
      search(params);
    } else {
      if (running) running.abort();
      running = null;
      [errorBox, timings, context].forEach((node) => { node.hidden = true; });
      results.replaceChildren();
      results.removeAttribute('aria-busy');
      searchButton.textContent = 'Search';
      statusLine.textContent = '';
      $('examples').hidden = false;
      document.body.dataset.state = 'idle';
    }
  });

  document.body.dataset.state = 'idle';
  const initial = urlParams();
  fillForm(initial);
  loadCollections();
  loadChapters();
  if (initial.q.trim()) search(initial);
})();
