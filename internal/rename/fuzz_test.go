package rename

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzDecide checks that no text, however malformed, panics a rename, and
// that a rename changes nothing but the name: each change's new text is
// its old text with exactly the edited bytes, each of them the old name,
// replaced by the new one; a refused rename changes no file.
func FuzzDecide(f *testing.F) {
	f.Add(workflowYAML, "register_cuda_ci(60, 'stage-x', labels=['megatron'])\n", "CI_SUITES = {HWBackend.CUDA: ['stage-x']}\n")
	f.Add("jobs: {stage-x: &a {needs: [stage-x]}, b: *a}\n", "register_cuda_ci(60, f'stage-{x}')\n", "X = ['stage-' 'x']\n")
	f.Add("a: \"stage\\x2Dx\"\n# stage-x\n", "register_cuda_ci(60, suite='stage\\x2dx')\n", "x = '''stage-x'''\n")
	f.Add("stage-x: [stage-x-y, 'nightly-stage-x', stage-x.stage-x]\n", "register_cuda_ci(**k)\n", "'stage-x' 'stage-x'\n")
	cfg := testConfig(f, rosterYAML)
	f.Fuzz(func(t *testing.T, wf, test, ci string) {
		files := []File{
			roster(),
			{Path: ".github/workflows/a.yml", Role: Workflow, Src: []byte(wf)},
			{Path: "tests/test_a.py", Role: TestFile, Src: []byte(test)},
			{Path: "tests/ci/run_suite.py", Role: PythonCI, Src: []byte(ci)},
		}
		p := Decide(cfg, "stage-x", "stage-zz", files)
		if len(p.Refused) > 0 && len(p.Changes) > 0 {
			t.Fatalf("refused %v but changes %d files", p.Refused, len(p.Changes))
		}
		for _, r := range p.Refused {
			if strings.ContainsAny(r.String(), "\r\n") {
				t.Fatalf("a refusal spans lines: %q", r.String())
			}
		}
		for _, c := range p.Changes {
			var rebuilt []byte
			at := 0
			for _, e := range c.Edits {
				if e.Start < at || string(c.Old[e.Start:e.End]) != "stage-x" {
					t.Fatalf("%s: edit %+v is not the old name", c.Path, e)
				}
				rebuilt = append(append(rebuilt, c.Old[at:e.Start]...), "stage-zz"...)
				at = e.End
			}
			rebuilt = append(rebuilt, c.Old[at:]...)
			if !bytes.Equal(rebuilt, c.New) {
				t.Fatalf("%s: the new text is not the old one with its edits", c.Path)
			}
		}
	})
}
