package stage

import (
	"github.com/radixark/miles-ci/internal/plan"
	"github.com/radixark/miles-ci/internal/report"
)

// RestrictToRerun keeps, of the tests p runs today, those that did not pass
// in the report at path (see report.SelectRerun). A report that cannot be
// read, or belongs to another suite, backend or shard, is an error before
// anything runs.
func RestrictToRerun(p *plan.Plan, path string) error {
	prev, err := report.Read(path)
	if err != nil {
		return err
	}
	if err := prev.CheckSuite(p.Suite, string(p.Backend)); err != nil {
		return err
	}
	files := make([]string, len(p.Enabled))
	for i, r := range p.Enabled {
		files[i] = r.File
	}
	sel, err := report.SelectRerun(prev, files)
	if err != nil {
		return err
	}
	kept := p.Enabled[:0:0]
	for i, r := range p.Enabled {
		if sel.Keep[i] {
			kept = append(kept, r)
		}
	}
	p.Rerun = &plan.Rerun{Path: path, Count: sel.Count, Total: len(files)}
	p.Enabled = kept
	return nil
}
