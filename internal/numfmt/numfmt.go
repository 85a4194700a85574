// Package numfmt formats numbers for people: fixed decimals rounded half
// away from zero on the number's shortest decimal form (what a reader sees
// of it: 4.5 h at no decimals is 5, 2.675 at two is 2.68), and thousands
// separated by commas. strconv rounds the binary value to even instead,
// which shows 4.5 as 4. The tables, the report and its charts share it.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Fixed is v with d decimals (0 ≤ d), rounded half away from zero on its
// shortest decimal form; never "-0".
func Fixed(v float64, d int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	ip, frac, _ := strings.Cut(s, ".")
	if len(frac) > d {
		up := frac[d] >= '5'
		digits := []byte(ip + frac[:d])
		if up {
			i := len(digits) - 1
			for ; i >= 0; i-- {
				if digits[i] == '9' {
					digits[i] = '0'
					continue
				}
				digits[i]++
				break
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
			}
		}
		ip, frac = string(digits[:len(digits)-d]), string(digits[len(digits)-d:])
	} else {
		frac += strings.Repeat("0", d-len(frac))
	}
	out := ip
	if d > 0 {
		out += "." + frac
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return out
}

// Thousands is Fixed with commas between groups of three digits of the
// integer part: 1,234,567.8.
func Thousands(v float64, d int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Fixed(v, d)
	}
	return Group(Fixed(v, d))
}

// Group puts commas between groups of three digits of the integer part of
// a formatted number, "-1234.5" → "-1,234.5".
func Group(s string) string {
	neg := strings.HasPrefix(s, "-")
	ip, frac, hasFrac := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, ch := range ip {
		if i > 0 && (len(ip)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}
