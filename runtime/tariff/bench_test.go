package tariff

import (
	"math"
	"strings"
	"testing"
)

func benchClock(b *testing.B) Clock {
	return Clock{Epoch: 1027839845, Loc: mustLoad(b, "Europe/Stockholm")}
}

// BenchmarkBasePeakWalkYear walks a year of weekday peak/base segments the
// way the engine integrates cost: At, then At again at next.
func BenchmarkBasePeakWalkYear(b *testing.B) {
	c := benchClock(b)
	tf := BasePeak(c, []Window{{From: 6 * h, To: 22 * h, Days: weekdays}}, pPeak, pBase)
	calls := 0
	for b.Loop() {
		_, n := walkIntegral(tf, 0, 365*86400)
		calls += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/segment")
}

// BenchmarkBasePeakAtEvents calls At at increasing times 97 s apart, as
// simulated events do (325,000 calls per simulated year).
func BenchmarkBasePeakAtEvents(b *testing.B) {
	c := benchClock(b)
	tf := BasePeak(c, []Window{{From: 6 * h, To: 22 * h, Days: weekdays}, {From: 12 * h, To: 13 * h}}, pPeak, pBase)
	t := 0.0
	for b.Loop() {
		tf.At(t)
		t += 97
		if t > 365*86400 {
			t = 0
		}
	}
}

// BenchmarkBasePeakColdDay forces a chunk rebuild on every call (worst
// case: runs sharing one tariff at distant times).
func BenchmarkBasePeakColdDay(b *testing.B) {
	c := benchClock(b)
	tf := BasePeak(c, []Window{{From: 6 * h, To: 22 * h, Days: weekdays}}, pPeak, pBase)
	t := 0.0
	for b.Loop() {
		tf.At(t)
		t += 8 * 86400
		if t > 10*365*86400 {
			t = 0
		}
	}
}

func BenchmarkHourlyWalk(b *testing.B) {
	c := benchClock(b)
	prices := make([]float64, 12000)
	for k := range prices {
		prices[k] = 0.14 + 0.05*math.Sin(float64(k)/7)
	}
	tf := Hourly(c, &Series{Prices: prices}, LocalMidnight(c, 0))
	calls := 0
	for b.Loop() {
		_, n := walkIntegral(tf, 0, 365*86400)
		calls += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/segment")
}

func BenchmarkReadPriceCSV(b *testing.B) {
	prices := make([]float64, 12000)
	for k := range prices {
		prices[k] = 0.14 + 0.05*math.Sin(float64(k)/7)
	}
	in := writeCSV(3, prices, 1.0/24)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ReadPriceCSV("T.csv", strings.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}
