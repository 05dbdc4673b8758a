package ghactions

import (
	"fmt"
	"os"
	"strings"
)

// OutputPair is one step output: a name and a single-line value.
type OutputPair struct {
	Name  string
	Value string
}

// OutputError is an output that cannot be written as one name=value line.
type OutputError struct {
	Name string
	Msg  string
}

func (e *OutputError) Error() string { return fmt.Sprintf("step output %q: %s", e.Name, e.Msg) }

// FormatOutputs renders outputs as GITHUB_OUTPUT lines, "name=value\n" each,
// in order. A name that is empty or holds '=', CR or LF, or a value holding
// CR or LF, is refused: the runner would read it as another output, so one
// forged label could set any step output.
func FormatOutputs(pairs []OutputPair) (string, error) {
	var b strings.Builder
	for _, p := range pairs {
		switch {
		case p.Name == "" || strings.ContainsAny(p.Name, "=\r\n"):
			return "", &OutputError{Name: p.Name, Msg: "the name must be non-empty and hold no '=', CR or LF"}
		case strings.ContainsAny(p.Value, "\r\n"):
			return "", &OutputError{Name: p.Name, Msg: "the value holds a line break"}
		}
		b.WriteString(p.Name)
		b.WriteByte('=')
		b.WriteString(p.Value)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// AppendOutputs appends outputs to the GITHUB_OUTPUT file at path, creating
// it when missing, on a line of their own: after a line break when the
// file does not end in one (an earlier `printf 'x=1' >> $GITHUB_OUTPUT`),
// which would glue the first output onto that line as part of its value.
// Every pair is checked before anything is written, and
// the lines go out in one write, so a refused value leaves the file as it
// was. A write that fails part-way (a full disk, a file size limit) would
// leave a partial line the runner reads as a wrong output, so the file is
// then cut back to the length it had.
func AppendOutputs(path string, pairs []OutputPair) error {
	text, err := FormatOutputs(pairs)
	if err != nil {
		return err
	}
	f, err := openAppend(path, 0o666)
	if err != nil {
		return fmt.Errorf("open GITHUB_OUTPUT %q: %w", path, err)
	}
	// Only a regular file has a length to restore; a device or a pipe
	// (GITHUB_OUTPUT=/dev/stdout) takes the write as it comes.
	before := int64(-1)
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		before = info.Size()
	}
	_, err = f.WriteString(onNewLine(f, path) + text)
	if err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err != nil {
		if before >= 0 {
			_ = os.Truncate(path, before)
		}
		return fmt.Errorf("write GITHUB_OUTPUT %q: %w", path, err)
	}
	return nil
}

// StepOutputs delivers the outputs of a workflow command (policy,
// file-run): appended to the GITHUB_OUTPUT file when the variable is set,
// else returned as text for stdout, so a developer's terminal shows them.
// Set but empty is an error: the Python scripts fail opening the empty
// path, and printing instead would let a broken step pass without outputs.
func StepOutputs(path string, set bool, pairs []OutputPair) (stdout string, err error) {
	lines, err := FormatOutputs(pairs)
	switch {
	case err != nil:
		return "", err
	case set && path == "":
		return "", fmt.Errorf("GITHUB_OUTPUT is set but empty; unset it to print the outputs on stdout")
	case set:
		return "", AppendOutputs(path, pairs)
	}
	return lines, nil
}

// onNewLine returns the line break to write first to f, the file at path
// opened to append: "\n" when it is a regular file whose last byte is not
// one, else "". A device, a pipe or a file it cannot read takes the text
// as it comes.
func onNewLine(f *os.File, path string) string {
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
		return ""
	}
	r, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer r.Close()
	// The path may name another file by now; only the one being appended
	// to counts.
	if rinfo, err := r.Stat(); err != nil || !os.SameFile(info, rinfo) {
		return ""
	}
	last := make([]byte, 1)
	if _, err := r.ReadAt(last, info.Size()-1); err != nil || last[0] == '\n' {
		return ""
	}
	return "\n"
}
