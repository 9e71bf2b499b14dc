#!/usr/bin/env bash
# The house rules of the tree (scripts/check-layout, docs/design.md): no KRAY_HAVE_CUDA outside
# src/core/, no source file over 800 lines, no dependency circle between the library's objects.
set -euo pipefail
command -v nm >/dev/null || { echo "nm not found"; exit 77; }
python3 "$KRAY_SRC/scripts/check-layout" "$KRAY_SRC" "$KRAY_BUILD/CMakeFiles/kray_obj.dir"
echo "layout: 1 passed, 0 failed"
