# Sourced by bench/run, bench/answer-path, bench/hybrid/run and the bench/*-manual and
# bench/rust-book run scripts.
# python_manual: prints the folder of the realistic workload's default pages, the Python 3.11
# manual from Debian's python3.11-doc, fetched once into target/bench with apt-get download.
python_manual() {
  local dir=target/bench/python3.11-doc
  if [[ ! -d "$dir/x/usr/share/doc/python3.11/html" ]]; then
    mkdir -p "$dir"
    (cd "$dir" && apt-get download python3.11-doc >&2 && dpkg-deb -x python3.11-doc_*.deb x)
  fi
  echo "$dir/x/usr/share/doc/python3.11/html"
}

# manual_site <package> <html folder in it> <pages.txt> <port> <dir>: <dir>/site holds the listed
# pages (their folders kept) and a sitemap.xml of them at http://127.0.0.1:<port>/. The Debian
# package is unpacked once into <dir>/x; its .deb is looked for in $DEBS (default <dir>), else
# fetched there with apt-get download (after `apt-get update` once). Prints nothing on stdout.
manual_site() {
  local package=$1 html=$2 pages=$3 port=$4 dir=$5
  local debs="${DEBS:-$dir}"
  mkdir -p "$dir" "$debs"
  if [[ ! -d "$dir/x/$html" ]]; then
    ls "$debs"/"${package}"_*.deb >/dev/null 2>&1 || (cd "$debs" && apt-get download "$package" >&2)
    dpkg-deb -x "$(ls "$debs"/"${package}"_*.deb | head -1)" "$dir/x"
  fi
  rm -rf "$dir/site" && mkdir -p "$dir/site"
  while read -r page; do
    mkdir -p "$dir/site/$(dirname "$page")"
    cp "$dir/x/$html/$page" "$dir/site/$page"
  done < "$pages"
  {
    echo '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    while read -r page; do echo "<url><loc>http://127.0.0.1:$port/$page</loc></url>"; done < "$pages"
    echo '</urlset>'
  } > "$dir/site/sitemap.xml"
}

# manual_eval <set folder> <package> <html folder in it> <collection> <default port> [eval options]:
# what each set's `run` does. Serves the set's pages.txt locally, ingests them through the sitemap
# with the embedded default into <collection> of a temporary RAG_DATA_DIR, then runs the set's
# eval.jsonl at top 10. WORK=dir keeps the download and the index between runs (SKIP_INGEST=1 then
# only evaluates); PORT changes the port; JAR=file runs another build.
manual_eval() {
  local here=$1 package=$2 html=$3 collection=$4 port="${PORT:-$5}"
  shift 5
  local root="$here/../.."
  local work="${WORK:-$(mktemp -d)}"
  local jar="${JAR:-$root/target/rag-retrieval.jar}"
  [[ -f "$jar" ]] || (cd "$root" && ./mvnw -q -B -DskipTests package)
  manual_site "$package" "$html" "$here/pages.txt" "$port" "$work"
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/site" >/dev/null 2>&1 &
  # shellcheck disable=SC2064  # the server's pid, as it is now
  trap "kill $!" EXIT
  sleep 1
  export RAG_DATA_DIR="$work/data" EMBEDDING_PROVIDER=local
  if [[ -z "${SKIP_INGEST:-}" ]]; then
    java -jar "$jar" ingest "http://127.0.0.1:$port/sitemap.xml" --collection "$collection" --recreate
  fi
  java -jar "$jar" eval "$here/eval.jsonl" --collection "$collection" --top-k 10 --output "$work/report.json" "$@"
  echo "report: $work/report.json"
}
