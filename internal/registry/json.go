package registry

import (
	"strconv"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// MarshalJSON writes the registration object of SPEC §7 with the keys in
// their documented order. It is written by hand rather than by reflection
// for two reasons a user can see: an est_time of infinity (legal Python,
// 1e999) is written as the number 1e999, which reads back as infinity,
// instead of failing the whole command, and a lone surrogate in a string is written \udXXX as
// the reference writes it. It is also what makes `suites --json` cheap on
// 100,000 files.
func (r Registration) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 160+len(r.File)+len(r.Suite))
	b = append(b, `{"file":`...)
	b = pyfmt.AppendJSONString(b, r.File)
	b = append(b, `,"backend":`...)
	b = pyfmt.AppendJSONString(b, string(r.Backend))
	b = append(b, `,"suite":`...)
	b = pyfmt.AppendJSONString(b, r.Suite)
	b = append(b, `,"est_time":`...)
	b = pyfmt.AppendJSONFloat(b, r.EstTime)
	b = append(b, `,"labels":[`...)
	for i, l := range r.Labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = pyfmt.AppendJSONString(b, l)
	}
	b = append(b, `],"nightly":`...)
	b = strconv.AppendBool(b, r.Nightly)
	b = append(b, `,"disabled":`...)
	if r.Disabled == nil {
		b = append(b, "null"...)
	} else {
		b = pyfmt.AppendJSONString(b, *r.Disabled)
	}
	b = append(b, `,"implicit":`...)
	b = strconv.AppendBool(b, r.Implicit)
	return append(b, '}'), nil
}
