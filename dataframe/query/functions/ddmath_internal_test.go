package functions

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

const refPrec = 256

func bf(x float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(x) }

// refExp is e^x by its Taylor series on x/2^16, squared back.
func refExp(x float64) float64 {
	f, _ := refExpBig(x).Float64()
	return f
}

func refExpBig(x float64) *big.Float {
	r := bf(x)
	r.SetMantExp(r, -16)
	sum, term := bf(1), bf(1)
	for n := 1; n < 60; n++ {
		term.Mul(term, r)
		term.Quo(term, bf(float64(n)))
		sum.Add(sum, term)
	}
	for i := 0; i < 16; i++ {
		sum.Mul(sum, sum)
	}
	return sum
}

// refSinCos are sin x and cos x by their series at high precision.
func refSinCos(x float64) (float64, float64) {
	r := bf(x)
	r2 := new(big.Float).SetPrec(refPrec).Mul(r, r)
	sin, term := new(big.Float).SetPrec(refPrec).Set(r), new(big.Float).SetPrec(refPrec).Set(r)
	for n := 3; n < 200; n += 2 {
		term.Mul(term, r2)
		term.Quo(term, bf(float64(-(n-1)*n)))
		sin.Add(sin, term)
	}
	cos, term := bf(1), bf(1)
	for n := 2; n < 200; n += 2 {
		term.Mul(term, r2)
		term.Quo(term, bf(float64(-(n-1)*n)))
		cos.Add(cos, term)
	}
	s, _ := sin.Float64()
	c, _ := cos.Float64()
	return s, c
}

// TestCorrectlyRounded compares the double-double functions with series
// evaluated at 256 bits: the results must be those values rounded.
func TestCorrectlyRounded(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		x := rng.Float64()*40 - 20
		require.Equal(t, refExp(x), crExp(x), "exp(%v)", x)
		y := math.Abs(x) + 1e-3
		// log: the exact result's exp must round back to y, and crLog is
		// the double nearest it.
		l := crLog(y)
		lo, hi := math.Nextafter(l, -1), math.Nextafter(l, 2)
		d := func(v float64) *big.Float { return new(big.Float).Abs(new(big.Float).Sub(refExpBig(v), bf(y))) }
		// |e^l - y| is smallest at the nearest double, the exponential
		// being monotonic and nearly linear across one unit.
		require.True(t, d(l).Cmp(d(lo)) <= 0 && d(l).Cmp(d(hi)) <= 0, "log(%v) = %v", y, l)
		z := rng.Float64()*12 - 6
		s, c := refSinCos(z)
		require.Equal(t, s, crSin(z), "sin(%v)", z)
		require.Equal(t, c, crCos(z), "cos(%v)", z)
	}
	// Spark's documented values.
	require.Equal(t, 0.6420926159343306, 1/crTan(1))
	require.Equal(t, 1.1883951057781212, 1/crSin(1))
	require.Equal(t, 2.0, crLog(100)/crLog(10))
	require.Equal(t, 8.0, crPow(2, 3))
	require.Equal(t, -8.0, crPow(-2, 3))
	require.True(t, math.IsNaN(crPow(-2, 0.5)))
}

func BenchmarkCorrectlyRounded(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{{"exp", crExp}, {"log", crLog}, {"sin", crSin}, {"tan", crTan}, {"atan", crAtan}, {"pow", func(x float64) float64 { return crPow(x, 1.7) }}} {
		b.Run(c.name, func(b *testing.B) {
			x := 0.0
			for i := 0; i < b.N; i++ {
				x += c.f(1.2345 + float64(i%100)*0.01)
			}
			_ = x
		})
	}
}
