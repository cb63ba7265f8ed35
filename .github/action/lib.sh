# Helpers the Action's steps source (resolve.sh, install.sh, run.sh). Nothing here
# runs input text: inputs are only compared, split and printed escaped.

# A release tag as the release workflow publishes them: vMAJOR.MINOR.PATCH, and a
# pre-release or build suffix of letters, digits, `.`, `+` and `-` (v1.2.3-rc.1). A
# whole-string match: no newline, space, colon or percent sign gets through.
release_tag='^v[0-9]+\.[0-9]+\.[0-9]+([.+-][0-9A-Za-z.+-]*)?$'

# Whether $1 is a release tag.
is_release_tag() {
  [[ "$1" =~ $release_tag ]]
}

# $1 as the data of a workflow command, escaped as GitHub's toolkit escapes it
# (`%` `%25`, carriage return `%0D`, newline `%0A`): text from an input cannot end
# the command's line and start another (`::add-mask::`, `::stop-commands::`).
escape_data() {
  local value=$1 percent=%25 carriage=%0D newline=%0A
  value=${value//'%'/$percent}
  value=${value//$'\r'/$carriage}
  value=${value//$'\n'/$newline}
  printf '%s' "$value"
}

# Prints an error annotation titled `tether` whose message is $1, escaped.
say_error() {
  printf '::error title=tether::%s\n' "$(escape_data "$1")"
}

# Splits $1 into the array `words` as a shell reads quoting, and nothing more:
# words end at spaces, tabs and newlines (every line is read), and '…' or "…" keep
# spaces inside one word ("charts/my chart"). Nothing is expanded or run: `$x`,
# `$(…)`, `*` and backslashes are plain characters. Fails on a quote left open.
split_words() {
  local text=$1 word="" quote="" char index started=false
  words=()
  for ((index = 0; index < ${#text}; index++)); do
    char=${text:index:1}
    if [ -n "$quote" ]; then
      if [ "$char" = "$quote" ]; then
        quote=""
      else
        word+=$char
      fi
    elif [ "$char" = "'" ] || [ "$char" = '"' ]; then
      quote=$char
      started=true
    elif [[ "$char" == [[:space:]] ]]; then
      if [ "$started" = true ]; then
        words+=("$word")
      fi
      word=""
      started=false
    else
      word+=$char
      started=true
    fi
  done
  if [ -n "$quote" ]; then
    return 1
  fi
  if [ "$started" = true ]; then
    words+=("$word")
  fi
}
