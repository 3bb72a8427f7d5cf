#!/bin/sh
# Writes the kx(1) man page from the help texts of kx and its subcommands, so the page cannot drift from the CLI.
#   kx-manpage.sh KX STATIC.h2m OUTPUT [HIDDEN_SUBCOMMAND...]
# help2man writes the page around `kx --help` and `kx --version`; this script adds a COMMANDS section with every
# subcommand's `--help` (found by walking the "Subcommands:" lists, plus the hidden ones named on the command line)
# and an EXIT STATUS section from the help's footer. STATIC.h2m holds the hand-written sections (files, environment).
set -eu

if [ $# -lt 3 ]; then
    echo "usage: $0 KX STATIC.h2m OUTPUT [HIDDEN_SUBCOMMAND...]" >&2
    exit 2
fi
kx=$1
static=$2
export LC_ALL=C.UTF-8
output=$3
shift 3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The help text without the blocks that get sections of their own.
strip_blocks() {
    awk '/^(Subcommands|Exit codes):$/ { skip = 1; next } skip && /^$/ { skip = 0; next } !skip'
}

# One subcommand's --help as roff: the summary, the usage, then its positionals, options and subcommands as tagged
# paragraphs. CLI11 puts an entry's text at column 30, or on the next line when the entry is longer.
to_roff() {
    awk -v command="$1" '
    function escape(text) {
        gsub(/\\/, "\\e", text)
        gsub(/-/, "\\-", text)
        return text
    }
    function line(text) {
        if (text ~ /^[.\047]/)
            text = "\\&" text
        print text
    }
    function entry(spec,    name, rest, n, names, i, out) {
        name = spec; rest = ""
        if (match(spec, / /)) {
            name = substr(spec, 1, RSTART - 1)
            rest = substr(spec, RSTART + 1)
        }
        n = split(name, names, ",")
        out = ""
        for (i = 1; i <= n; ++i)
            out = out (i > 1 ? ", " : "") "\\fB" escape(names[i]) "\\fR"
        if (rest != "")
            out = out " " escape(rest)
        print ".TP"
        line(out)
    }
    NR == 1 { line(escape($0)); next }
    /^Usage: / {
        usage = substr($0, 8)
        sub("^" command, "", usage)
        print ".PP"
        line("Usage: \\fB" escape(command) "\\fR" escape(usage))
        next
    }
    /^(Positionals|Options|Subcommands):$/ { print ".PP"; line($0); next }
    /^                              / { sub(/^ +/, ""); line(escape($0)); next }
    /^  [^ ]/ {
        text = substr($0, 3)
        if (match(text, /  +/)) {
            start = RSTART; length_ = RLENGTH
            entry(substr(text, 1, start - 1))
            line(escape(substr(text, start + length_)))
        } else {
            entry(text)
        }
        next
    }
    /^$/ { next }
    { line(escape($0)) }
    '
}

# The names listed under "Subcommands:" in a help text.
subcommands() {
    awk '/^Subcommands:$/ { list = 1; next } list && /^$/ { exit } list && /^  [^ ]/ { print $1 }'
}

# Walks the subcommand tree depth first, in the order the help lists them.
describe() {
    # $@: the words after kx
    help=$("$kx" "$@" --help)
    echo ".SS \"kx $*\""
    printf '%s\n' "$help" | strip_blocks | to_roff "kx $*"
    for sub in $(printf '%s\n' "$help" | subcommands); do
        describe "$@" "$sub"
    done
}

"$kx" --help > "$work/help.txt"
{
    echo "[COMMANDS]"
    printf '%s\n' 'Every command takes \fB\-h\fR, \fB\-\-help\fR.'
    for sub in $(subcommands < "$work/help.txt"); do
        describe "$sub"
    done
    for sub in "$@"; do
        describe "$sub"
    done
    echo
    echo "[EXIT STATUS]"
    awk '/^Exit codes:$/ { list = 1; next }
        list && /^  [^ ]/ { code = $1; sub(/^ *[^ ]+ +/, ""); gsub(/-/, "\\-"); print ".TP"; print code; print }' \
        "$work/help.txt"
} > "$work/generated.h2m"

# help2man runs the program it is given: a wrapper named kx shows it the top-level help without the blocks that
# have sections above, and with a space after the comma of "-h,--help" so that both names are set as options.
cat > "$work/kx" <<EOF
#!/bin/sh
if [ "\$1" = --help ]; then
    awk '/^(Subcommands|Exit codes):\$/ { skip = 1; next } skip && /^\$/ { skip = 0; next } !skip' "$work/help.txt" |
        sed -E 's/^(  -[^ ,]+),(--)/\1, \2/'
else
    exec "$kx" "\$@"
fi
EOF
chmod +x "$work/kx"

"${HELP2MAN:-help2man}" --no-info --no-discard-stderr --section=1 --manual="User Commands" \
    --name="turn PyTorch ops into fast, verified CUDA kernels" \
    --include="$static" --include="$work/generated.h2m" --output="$work/kx.1" "$work/kx"
mv "$work/kx.1" "$output"
