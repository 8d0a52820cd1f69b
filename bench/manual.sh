# Sourced by bench/run and bench/answer-path.
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
