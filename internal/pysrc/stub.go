package pysrc

import "errors"

// ReadCalls tokenizes the whole of src (every tokenizer error anywhere in the
// file is a *SyntaxError) and returns, in source order, each module-level
// expression statement that is a bare call of one of names (compared after
// NFKC normalization). Grammar errors inside such a call are *SyntaxError too.
func ReadCalls(src []byte, names map[string]bool) ([]Call, error) {
	return nil, errors.New("pysrc: not implemented")
}

// ReadStringDict returns the entries of a module-level `name = {...}` (or
// `name: T = {...}`) assignment whose value is a dict literal of string keys
// and string values.
func ReadStringDict(src []byte, name string) ([]DictEntry, error) {
	return nil, errors.New("pysrc: not implemented")
}
