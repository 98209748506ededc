package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/awp-tray/awp-tray/internal/flaghelp"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// words lists the positional words a command takes, by position, for
// completion ("" where any text goes).
var words = map[string][][]string{
	"blob":       {{"get"}},
	"presence":   {{"detail"}, {"full", "peers", "none"}},
	"mirror":     {{"hosts", "on", "off"}},
	"request":    {{"exec", "fs:read", "fs:write"}},
	"decide":     {{""}, {"allow", "deny"}},
	"state":      {states, states}, // awp state --th TH STATE, or awp state TH STATE
	"completion": {{"bash", "zsh", "fish"}},
}

// states are the states awp state offers (wire.State*).
var states = []string{wire.StateOpen, wire.StateWorking, wire.StateWaiting, wire.StateDone, wire.StateFailed, wire.StateClosed}

// flagValues lists the values of flags that take one of a few, for
// completion; flagKinds says what other flags take.
var (
	flagValues = map[string][]string{
		"accept":       {"any", "known", "trusted"},
		"presence":     {"full", "peers", "none"},
		"approve":      {"deny", "ask"},
		"keyring":      {"keyring", "file"},
		"caps":         knownCaps,
		"exec-sandbox": {"auto", "bwrap", "none"},
	}
	flagKinds = map[string]string{
		"data": "dir", "workspace": "dir",
		"to": "key", "from": "key", "on": "key", "trust": "key", "mirror-to": "key",
		"th": "thread",
		"o":  "file", "blob": "file", "grant": "file", "code-file": "file", "stdin-file": "file", "content-file": "file",
	}
)

// completionSpec is what a script needs of one command.
type completionSpec struct {
	name, summary string
	flags         []*flag.Flag
}

func completionSpecs() []completionSpec {
	var out []completionSpec
	for _, c := range commands {
		s := completionSpec{name: c.name, summary: c.summary}
		var h *helpRequest
		if errors.As(flagsOf(c), &h) {
			h.fs.VisitAll(func(f *flag.Flag) { s.flags = append(s.flags, f) })
		}
		out = append(out, s)
	}
	return out
}

// valueFlagNames lists, once each, the flags that take a value.
func valueFlagNames(specs []completionSpec) []string {
	var out []string
	for _, s := range specs {
		for _, f := range s.flags {
			if !flaghelp.IsBool(f) && !slices.Contains(out, f.Name) {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

func runCompletion(e *env, args []string) error {
	fs := newFlags("completion")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := nArgs(pos, 1, "SHELL (bash, zsh or fish)"); err != nil {
		return err
	}
	switch pos[0] {
	case "bash":
		writeBash(e.stdout, completionSpecs(), false)
	case "zsh":
		writeBash(e.stdout, completionSpecs(), true)
	case "fish":
		writeFish(e.stdout, completionSpecs())
	default:
		return usagef("%q: want bash, zsh or fish", pos[0])
	}
	return nil
}

// runComplete prints, one per line, the peer names and short keys (keys)
// or the thread ids (threads) of the running peer; nothing when no peer
// runs, so that a completion never prints an error.
func runComplete(e *env, args []string) error {
	fs := newFlags("__complete")
	pos, err := fs.parse(args)
	if err != nil || len(pos) != 1 {
		return nil
	}
	c, err := e.client(fs)
	if err != nil {
		return nil
	}
	switch pos[0] {
	case "keys":
		peers, err := c.Peers(e.ctx)
		if err != nil {
			return nil
		}
		names := map[string]int{}
		for _, p := range peers {
			names[p.Name]++
		}
		for _, p := range peers {
			if p.Name != "" && names[p.Name] == 1 && !strings.ContainsAny(p.Name, " \t\n'\"\\$`") {
				fmt.Fprintln(e.stdout, p.Name)
			}
			fmt.Fprintln(e.stdout, shortKey(p.Key))
		}
	case "threads":
		ts, err := c.Threads(e.ctx)
		if err != nil {
			return nil
		}
		for _, t := range ts {
			fmt.Fprintln(e.stdout, t.Th)
		}
	}
	return nil
}

// bashWrapper is the bash completion function awp registers: it reads
// the command line (bash's words joined again where bash split them), asks
// __awp_reply for the candidates and gives back what the shell replaces.
const bashWrapper = `_awp() {
	local -a w
	local cword=0 i x full cur prev flag head="" keep r
	# bash splits words at = and : (COMP_WORDBREAKS): join them again, so
	# that --caps=fs:read is one word, as awp reads it (zsh does not split).
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		x="${COMP_WORDS[i]}"
		if ((i > 1)) && [[ -n $x ]] && [[ $x == [=:] || ${COMP_WORDS[i-1]} == [=:] ]]; then
			w[${#w[@]}-1]+="$x"
		else
			w+=("$x")
		fi
		((i == COMP_CWORD)) && cword=$((${#w[@]} - 1))
	done
	full="${w[cword]}"
	cur="$full"
	prev="${w[cword-1]}"
	# flag is the flag whose value is being completed, if any: the word
	# before, or the word itself in --flag=VALUE.
	flag="$prev"
	if [[ $cur == -*=* ]]; then
		flag="${cur%%=*}"
		head="$flag="
		cur="${cur#*=}"
	fi
	# The shell replaces only the piece after the last = or : in bash, the
	# whole word in zsh: keep is the part of the word it leaves alone.
	r="${COMP_WORDS[COMP_CWORD]}"
	[[ $r == [=:] ]] && r=""
	keep="${full:0:${#full}-${#r}}"
	COMPREPLY=()
	__awp_reply
	((${#COMPREPLY[@]})) || return 0
	COMPREPLY=("${COMPREPLY[@]/#/$head}")
	COMPREPLY=("${COMPREPLY[@]#"$keep"}")
}

`

// writeBash writes the bash completion function; zsh runs the same one
// through bashcompinit.
func writeBash(w io.Writer, specs []completionSpec, zsh bool) {
	var b strings.Builder
	if zsh {
		b.WriteString("# zsh completion for awp: source <(awp completion zsh) (in ~/.zshrc, after compinit)\n")
		b.WriteString("autoload -U +X bashcompinit && bashcompinit\n")
	} else {
		b.WriteString("# bash completion for awp: source <(awp completion bash)\n")
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.name)
	}
	b.WriteString(bashWrapper)
	fmt.Fprintf(&b, `# __awp_reply fills COMPREPLY with the candidates for cur, from _awp's words.
__awp_reply() {
	local cmd data c i
	# c is where the command stands: after a leading --data DIR, which
	# awp takes as $AWP_DATA for the run.
	c=1
	data=""
	if ((c < cword)); then
		case "${w[c]}" in
		--data|-data)
			data="${w[c+1]}"
			((c += 2)) ;;
		--data=*|-data=*)
			data="${w[c]#*=}"
			((c++)) ;;
		esac
	fi
	if ((cword < c)); then
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		return
	fi
	if ((cword == c)); then
		case "$head" in
		"") COMPREPLY=($(compgen -W "%s --help --version --data" -- "$cur")) ;;
		--data=|-data=)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -d -- "$cur")) ;;
		esac
		return
	fi
	cmd="${w[c]}"
	for ((i = c + 1; i < cword; i++)); do
		case "${w[i]}" in
		--data|-data) ((i + 1 < cword)) && data="${w[i+1]}" ;;
		--data=*|-data=*) data="${w[i]#*=}" ;;
		esac
	done
	if [[ $flag == -* ]]; then
	local p="${flag#-}"
	p="${p#-}"
	case "$p" in
`, strings.Join(names, " "))
	valueFlags := valueFlagNames(specs)
	writeBashFlagValues(&b, valueFlags)
	b.WriteString("\tesac\n\tfi\n\tif [[ $cur == -* ]]; then\n\t\tcase \"$cmd\" in\n")
	for _, s := range specs {
		var fl []string
		for _, f := range s.flags {
			fl = append(fl, "--"+f.Name)
		}
		fmt.Fprintf(&b, "\t\t%s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", s.name, strings.Join(append(fl, "--help"), " "))
	}
	b.WriteString("\t\tesac\n\t\treturn\n\tfi\n")
	writeBashWords(&b, valueFlags, names)
	b.WriteString("}\ncomplete -F _awp awp\n")
	io.WriteString(w, b.String())
}

// writeBashWords writes the cases that complete the n-th positional word
// of a command: count the words before cur that are not flags or flag
// values, then the command's words, names or peers' keys and threads.
func writeBashWords(b *strings.Builder, valueFlags, names []string) {
	b.WriteString("\tlocal n=0\n\tfor ((i = c + 1; i < cword; i++)); do\n\t\tcase \"${w[i]}\" in\n")
	fmt.Fprintf(b, "\t\t-%s|--%s) ((i++)) ;;\n", strings.Join(valueFlags, "|-"), strings.Join(valueFlags, "|--"))
	b.WriteString("\t\t-*) ;;\n\t\t*) ((n++)) ;;\n\t\tesac\n\tdone\n\tcase \"$cmd:$n\" in\n")
	for _, name := range slices.Sorted(maps.Keys(words)) {
		for i, ws := range words[name] {
			if len(ws) == 1 && ws[0] == "" {
				continue
			}
			fmt.Fprintf(b, "\t%s:%d) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", name, i, strings.Join(ws, " "))
		}
	}
	fmt.Fprintf(b, "\thelp:0) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(names, " "))
	b.WriteString("\ttrust:0|untrust:0) COMPREPLY=($(compgen -W \"$(awp __complete keys ${data:+--data \"$data\"} 2>/dev/null)\" -- \"$cur\")) ;;\n")
	b.WriteString("\tshow:0|private:0) COMPREPLY=($(compgen -W \"$(awp __complete threads ${data:+--data \"$data\"} 2>/dev/null)\" -- \"$cur\")) ;;\n")
	b.WriteString("\tesac\n")
}

// writeBashFlagValues writes the cases that complete a flag's value: the
// values of an enum flag, directories, files, the running peer's keys or
// threads, or nothing (any text goes).
func writeBashFlagValues(b *strings.Builder, valueFlags []string) {
	kinds := map[string][]string{}
	for _, name := range valueFlags {
		if vs, ok := flagValues[name]; ok {
			fmt.Fprintf(b, "\t%s)\n\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn ;;\n", name, strings.Join(vs, " "))
			continue
		}
		kinds[flagKinds[name]] = append(kinds[flagKinds[name]], name)
	}
	for _, k := range []string{"dir", "file", "key", "thread", ""} {
		if len(kinds[k]) == 0 {
			continue
		}
		fmt.Fprintf(b, "\t%s)\n", strings.Join(kinds[k], "|"))
		switch k {
		case "dir":
			b.WriteString("\t\tcompopt -o filenames 2>/dev/null\n\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n")
		case "file":
			b.WriteString("\t\tcompopt -o filenames 2>/dev/null\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n")
		case "key", "thread":
			fmt.Fprintf(b, "\t\tCOMPREPLY=($(compgen -W \"$(awp __complete %ss ${data:+--data \"$data\"} 2>/dev/null)\" -- \"$cur\"))\n", k)
		}
		b.WriteString("\t\treturn ;;\n")
	}
}

// fishFuncs are the fish functions the completions test with:
// __awp_cmdpos is where the command stands in the command line (after a
// leading --data DIR, which awp takes as $AWP_DATA for the run);
// __awp_needs_cmd and __awp_cmd_is ask about the command; __awp_data gives
// --data DIR to pass on to awp __complete, when the line has it.
// (__awp_nargs, written with the flags, counts the positional words after
// the command, flags and their values left out, to complete the next one.)
const fishFuncs = `function __awp_cmdpos
	set -l toks (commandline -opc)
	switch "$toks[2]"
		case --data -data
			echo 4
		case '--data=*' '-data=*'
			echo 3
		case '*'
			echo 2
	end
end
function __awp_needs_cmd
	test (__awp_cmdpos) -gt (count (commandline -opc))
end
function __awp_cmd_is
	set -l toks (commandline -opc)
	set -l i (__awp_cmdpos)
	test $i -le (count $toks); and contains -- $toks[$i] $argv
end
function __awp_data
	set -l toks (commandline -opc)
	set -l d
	for i in (seq 2 (math (count $toks) - 1))
		switch $toks[$i]
			case --data -data
				set d $toks[(math $i + 1)]
		end
	end
	for tok in $toks[2..-1]
		switch $tok
			case '--data=*' '-data=*'
				set d (string replace -r '^--?data=' '' -- $tok)
		end
	end
	if test -n "$d"
		echo --data
		echo $d
	end
end
`

// writeFish writes fish completions.
func writeFish(w io.Writer, specs []completionSpec) {
	var b strings.Builder
	b.WriteString("# fish completion for awp: awp completion fish | source\n")
	b.WriteString("complete -c awp -f\n")
	b.WriteString(fishFuncs)
	fmt.Fprintf(&b, `function __awp_nargs
	set -l toks (commandline -opc)
	set -l n 0
	set -l skip 0
	for tok in $toks[(math (__awp_cmdpos) + 1)..-1]
		if test $skip = 1
			set skip 0
			continue
		end
		switch $tok
			case %s
				set skip 1
			case '-*'
			case '*'
				set n (math $n + 1)
		end
	end
	echo $n
end
`, fishFlagPatterns(valueFlagNames(specs)))
	b.WriteString("complete -c awp -n __awp_needs_cmd -l help -d 'show the commands'\n")
	b.WriteString("complete -c awp -n __awp_needs_cmd -l version -d 'show the version'\n")
	b.WriteString("complete -c awp -n __awp_needs_cmd -l data -r -F -d 'the data directory for this run ($AWP_DATA)'\n")
	for _, s := range specs {
		fmt.Fprintf(&b, "complete -c awp -n __awp_needs_cmd -a %s -d %s\n", s.name, fishQuote(s.summary))
		cond := fishQuote("__awp_cmd_is " + s.name)
		for _, f := range s.flags {
			fmt.Fprintf(&b, "complete -c awp -n %s -l %s", cond, f.Name)
			if !flaghelp.IsBool(f) {
				switch {
				case flagValues[f.Name] != nil:
					fmt.Fprintf(&b, " -x -a %s", fishQuote(strings.Join(flagValues[f.Name], " ")))
				case flagKinds[f.Name] == "key":
					b.WriteString(" -x -a '(awp __complete keys (__awp_data) 2>/dev/null)'")
				case flagKinds[f.Name] == "thread":
					b.WriteString(" -x -a '(awp __complete threads (__awp_data) 2>/dev/null)'")
				case flagKinds[f.Name] == "file", flagKinds[f.Name] == "dir":
					b.WriteString(" -r -F")
				default:
					b.WriteString(" -x")
				}
			}
			fmt.Fprintf(&b, " -d %s\n", fishQuote(f.Usage))
		}
		for i, ws := range words[s.name] {
			if len(ws) == 1 && ws[0] == "" {
				continue
			}
			c := fishQuote(fmt.Sprintf("__awp_cmd_is %s; and test (__awp_nargs) = %d", s.name, i))
			fmt.Fprintf(&b, "complete -c awp -n %s -a %s\n", c, fishQuote(strings.Join(ws, " ")))
		}
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.name)
	}
	fmt.Fprintf(&b, "complete -c awp -n %s -a %s\n", fishQuote("__awp_cmd_is help; and test (__awp_nargs) = 0"), fishQuote(strings.Join(names, " ")))
	fmt.Fprintf(&b, "complete -c awp -n %s -a '(awp __complete keys (__awp_data) 2>/dev/null)'\n", fishQuote("__awp_cmd_is trust untrust; and test (__awp_nargs) = 0"))
	fmt.Fprintf(&b, "complete -c awp -n %s -a '(awp __complete threads (__awp_data) 2>/dev/null)'\n", fishQuote("__awp_cmd_is show private; and test (__awp_nargs) = 0"))
	io.WriteString(w, b.String())
}

// fishFlagPatterns is the switch patterns of flags that take a value, in
// their -name and --name forms.
func fishFlagPatterns(names []string) string {
	var p []string
	for _, n := range names {
		p = append(p, fishQuote("-"+n), fishQuote("--"+n))
	}
	return strings.Join(p, " ")
}

// fishQuote quotes s for fish: single quotes, with \ and ' escaped.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
