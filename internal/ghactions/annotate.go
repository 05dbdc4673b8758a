package ghactions

import (
	"strconv"
	"strings"
)

// dataEscaper escapes a workflow command's message: '%' first (the
// replacer never re-reads its own output, so "%0A" in the input stays
// "%250A"), then the two line breaks that would end the command early.
var dataEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

// propertyEscaper escapes a workflow command's property value, which also
// must not hold the ':' ending the property list or the ',' between
// properties.
var propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

// EscapeData escapes the message part of a workflow command.
func EscapeData(s string) string { return dataEscaper.Replace(s) }

// EscapeProperty escapes one property value of a workflow command.
func EscapeProperty(s string) string { return propertyEscaper.Replace(s) }

// Error returns the `::error::MSG` command: msg as an error annotation of
// the run, with no file.
func Error(msg string) string { return "::error::" + EscapeData(msg) }

// ErrorAnnotation returns the `::error file=F,line=L::MSG` command that makes
// GitHub show msg on a file. A line of 0 or less (the whole file is at fault)
// leaves the line property out.
func ErrorAnnotation(file string, line int, msg string) string {
	return Annotation{Level: LevelError, File: file, Line: line, Message: msg}.String()
}

// Annotation levels: the workflow command that shows the message.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// Annotation is a message GitHub shows on a line of a file in the pull
// request's diff and the run's summary.
type Annotation struct {
	Level   string // LevelError, LevelWarning or LevelNotice
	File    string
	Line    int    // 0 or less: the whole file
	Col     int    // 0 or less: the whole line
	Title   string // empty: GitHub's default title
	Message string
}

// String returns the workflow command, `::LEVEL file=F,line=L,col=C,title=T::MSG`,
// leaving out the properties that are not set. Without a file, the
// annotation is the run's (`::LEVEL title=T::MSG`), and line and column
// are left out too.
func (a Annotation) String() string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(a.Level)
	sep := " "
	if a.File != "" {
		b.WriteString(" file=")
		b.WriteString(EscapeProperty(a.File))
		sep = ","
		if a.Line > 0 {
			b.WriteString(",line=")
			b.WriteString(strconv.Itoa(a.Line))
			if a.Col > 0 {
				b.WriteString(",col=")
				b.WriteString(strconv.Itoa(a.Col))
			}
		}
	}
	if a.Title != "" {
		b.WriteString(sep + "title=")
		b.WriteString(EscapeProperty(a.Title))
	}
	b.WriteString("::")
	b.WriteString(EscapeData(a.Message))
	return b.String()
}
