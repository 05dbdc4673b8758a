package view

import (
	"fmt"
	"strconv"
)

// GPUHours writes GPU-milliseconds as GPU-hours to a thousandth (3.6
// GPU-seconds), rounded half up in whole numbers: the same digits
// whatever the platform (history cost, and the page of history site).
// The half is added to the remainder, so that the largest sum
// (history.Cost saturates at the largest int64) cannot wrap.
func GPUHours(ms int64) string {
	th := ms/3600 + (ms%3600+1800)/3600
	return strconv.FormatInt(th/1000, 10) + "." + fmt.Sprintf("%03d", th%1000)
}

// GPUSeconds writes GPU-milliseconds as GPU-seconds, exactly.
func GPUSeconds(ms int64) string {
	return strconv.FormatInt(ms/1000, 10) + "." + fmt.Sprintf("%03d", ms%1000)
}
