#!/usr/bin/env bash
# Executes every notebook in this folder top to bottom, headless, against the
# current checkout, and fails when any cell fails. Installs what it needs
# when missing: Jupyter from Debian's packages, GoNB v0.11.1, goimports and
# gopls from the Go module proxy.
#
#   bash notebooks/run.sh            # check: executed copies go to a temporary directory
#   bash notebooks/run.sh --update   # also store the outputs in the notebooks (commit them)
set -euo pipefail
update=false
case "${1:-}" in
  "") ;;
  --update) update=true ;;
  *) echo "usage: $0 [--update]" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export PATH="$(go env GOPATH)/bin:$PATH"

need_apt=()
command -v jupyter-nbconvert >/dev/null 2>&1 || need_apt+=(jupyter-nbconvert jupyter-notebook)
python3 -c 'import ipykernel' >/dev/null 2>&1 || /usr/bin/python3 -c 'import ipykernel' >/dev/null 2>&1 || need_apt+=(python3-ipykernel jupyter-client)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "notebooks: installing ${need_apt[*]}"
  if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq jupyter-notebook jupyter-nbconvert python3-ipykernel jupyter-client >/dev/null
fi

# The module proxy refuses GoNB's version list, so `go install …@v0.11.1`
# fails; `go get` of the package at the exact version in a scratch module
# works. It must name the package, not only its module: `go get` then adds
# the go.sum entries of everything the package imports (for goimports,
# golang.org/x/{mod,sync,telemetry}), which `go install` needs.
install_tool() { # package version
  local dir
  dir=$(mktemp -d)
  (cd "$dir" && go mod init scratch >/dev/null 2>&1 && GOFLAGS=-mod=mod go get "$1@$2" >/dev/null 2>&1 && go install "$1")
  rm -rf "$dir"
}
command -v gonb >/dev/null 2>&1 || { echo "notebooks: installing gonb"; install_tool github.com/janpfeifer/gonb v0.11.1; }
command -v goimports >/dev/null 2>&1 || { echo "notebooks: installing goimports"; install_tool golang.org/x/tools/cmd/goimports v0.52.0; }
command -v gopls >/dev/null 2>&1 || { echo "notebooks: installing gopls"; install_tool golang.org/x/tools/gopls v0.23.0; }
[ -f "${HOME}/.local/share/jupyter/kernels/gonb/kernel.json" ] || gonb --install >/dev/null 2>&1

# Each notebook's first cell points a go.work at the checkout ($SLUICE_ROOT),
# so the notebooks always run against the current code.
export SLUICE_ROOT="$root"

# House rules the notebooks keep: the first code cell builds against the
# checkout, and stored outputs hold no temporary paths (they would change on
# every run).
python3 - "$here"/*.ipynb <<'PY'
import json, re, sys
first = "!*rm -f go.work && go work init && go work use . $SLUICE_ROOT\n%goworkfix"
bad = False
for path in sys.argv[1:]:
    nb = json.load(open(path))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    if not code or "".join(code[0]["source"]).strip() != first:
        print(f"notebook {path}: the first code cell must be exactly:\n{first}")
        bad = True
    for c in code:
        for o in c.get("outputs", []):
            text = "".join(o.get("text", "")) + json.dumps(o.get("data", {}))
            m = re.search(r"/tmp/[^\s\"']*", text)
            if m:
                print(f"notebook {path}: stored output holds the temporary path {m.group(0)}")
                bad = True
sys.exit(1 if bad else 0)
PY

# Warm the build cache with everything the notebooks import, so that a cold
# cache costs one build here rather than a cell timeout.
echo "notebooks: building the checkout"
(cd "$root" && go build ./catalog/... ./connectors/... ./dataframe/... ./notifications/...) ||
  echo "notebooks: the warm-up build failed; the notebooks will show why"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for nb in "$here"/*.ipynb; do
  name=$(basename "$nb")
  start=$(date +%s)
  # No timing metadata: stored outputs then change only when results do.
  if (cd "$here" && timeout 900 jupyter nbconvert --to notebook --execute "$name" \
        --ExecutePreprocessor.timeout=300 --ExecutePreprocessor.record_timing=False \
        --output-dir "$out" >"$out/$name.log" 2>&1); then
    echo "notebook ok: $name ($(( $(date +%s) - start ))s)"
    if $update; then cp "$out/$name" "$nb"; fi
  else
    echo "notebook FAILED: $name"
    grep -v -E '^(I|W)[0-9]{4} |Debugger|frozen' "$out/$name.log" | tail -40
    status=1
  fi
done
exit $status
