package functions

import (
	"math"
	"math/big"
)

// Transcendental functions rounded correctly (to nearest), computed in
// double-double arithmetic (about 106 bits). Spark's answers come from the
// JVM (StrictMath's fdlibm, or HotSpot's intrinsics), which are correctly
// rounded for almost every argument; Go's math package is off by one unit
// in the last place for a quarter to a third of them. A result here is the
// double nearest the true value except within 2^-100 or so of a midpoint.
//
// Each function starts from Go's math result and refines it (Newton's
// method) or evaluates a Taylor series on a reduced argument; special
// values (NaN, infinities, zeros, out of range) are math's. Where Spark
// calls StrictMath functions that fdlibm builds from others (log10, sinh,
// cosh, tanh), the same construction is kept over these (fdlibm…), and
// Go's Expm1 and Log1p are fdlibm's already.

// dd is an unevaluated sum hi + lo with |lo| ≤ ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddF(a float64) dd { return dd{a, 0} }

func (a dd) add(b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

func (a dd) sub(b dd) dd { return a.add(b.neg()) }

func (a dd) mul(b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) mulF(b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.sub(b.mulF(q1))
	q2 := r.hi / b.hi
	r = r.sub(b.mulF(q2))
	q3 := r.hi / b.hi
	return quickTwoSum(q1, q2).add(ddF(q3))
}

func (a dd) ldexp(k int) dd { return dd{math.Ldexp(a.hi, k), math.Ldexp(a.lo, k)} }

// ddConst splits a decimal constant into a double-double and a third
// part (for argument reduction).
func ddConst(decimal string) (dd, float64) {
	v, _, err := big.ParseFloat(decimal, 10, 300, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	hi, _ := v.Float64()
	rest := new(big.Float).SetPrec(300).Sub(v, new(big.Float).SetFloat64(hi))
	lo, _ := rest.Float64()
	rest.Sub(rest, new(big.Float).SetFloat64(lo))
	lo2, _ := rest.Float64()
	return dd{hi, lo}, lo2
}

var (
	ddLn2, _          = ddConst("0.69314718055994530941723212145817656807550013436025525412068")
	ddLn10, _         = ddConst("2.30258509299404568401799145468436420760110148862877297603333")
	ddHalfPi, halfPi3 = ddConst("1.57079632679489661923132169163975144209858469968755291048747")
)

// invFact[n] is 1/n! in double-double.
var invFact = func() (t [32]dd) {
	f := new(big.Float).SetPrec(300).SetInt64(1)
	for n := range t {
		if n > 0 {
			f.Mul(f, new(big.Float).SetInt64(int64(n)))
		}
		q := new(big.Float).SetPrec(300).Quo(new(big.Float).SetPrec(300).SetInt64(1), f)
		hi, _ := q.Float64()
		lo, _ := new(big.Float).SetPrec(300).Sub(q, new(big.Float).SetFloat64(hi)).Float64()
		t[n] = dd{hi, lo}
	}
	return t
}()

// series is Σ c_k·x^k for the coefficients c, by Horner's rule.
func series(x dd, c []dd) dd {
	p := c[len(c)-1]
	for k := len(c) - 2; k >= 0; k-- {
		p = p.mul(x).add(c[k])
	}
	return p
}

// expDD is e^x for |x| ≤ 709, in double-double.
func expDD(x dd) dd {
	k := math.Round(x.hi / ddLn2.hi)
	r := x.sub(ddLn2.mulF(k))
	// e^r = (e^(r/1024))^1024; |r/1024| < 3.4e-4, so 10 terms reach 1e-38.
	sum := series(r.ldexp(-10), invFact[:11])
	for i := 0; i < 10; i++ {
		sum = sum.mul(sum)
	}
	return sum.ldexp(int(k))
}

// crExp is e^x rounded correctly.
func crExp(x float64) float64 {
	if math.IsNaN(x) || math.Abs(x) > 708 || x == 0 {
		return math.Exp(x)
	}
	return expDD(ddF(x)).hi
}

// logDD is ln x for x > 0 (a finite double-double), by one Newton step
// from math.Log.
func logDD(x dd) dd {
	y := ddF(math.Log(x.hi))
	e := expDD(y)
	return y.add(x.sub(e).div(e))
}

func crLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) || x < 1e-300 || x > 1e300 {
		return math.Log(x)
	}
	return logDD(ddF(x)).hi
}

// crPow is x^y with java.lang.Math.pow's special cases (Go's agree) and
// the general case rounded correctly.
func crPow(x, y float64) float64 {
	p := math.Pow(x, y)
	if math.IsNaN(p) || math.IsInf(p, 0) || p == 0 || x == 0 || y == 0 || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 1 {
		return p
	}
	ax := math.Abs(x)
	if ax < 1e-300 || ax > 1e300 {
		return p
	}
	t := logDD(ddF(ax)).mulF(y)
	if math.Abs(t.hi) > 708 {
		return p
	}
	r := expDD(ddF(t.hi)).mul(ddF(1).add(ddF(t.lo)))
	return math.Copysign(r.hi, p) // a negative x with an odd integer y
}

// reduceHalfPi is x - k·π/2 for the nearest k, and k modulo 4; ok is false
// for arguments too large to reduce this way.
func reduceHalfPi(x float64) (dd, int, bool) {
	if math.Abs(x) > 1e8 {
		return dd{}, 0, false
	}
	k := math.Round(x / ddHalfPi.hi)
	r := ddF(x).sub(twoProd(k, ddHalfPi.hi))
	r = r.sub(twoProd(k, ddHalfPi.lo))
	r = r.sub(ddF(k * halfPi3))
	return r, int(int64(k) & 3), true
}

// sinCoeffs and cosCoeffs are the Taylor coefficients of sin r / r and
// cos r in powers of r²: (-1)^k/(2k+1)! and (-1)^k/(2k)!.
var sinCoeffs, cosCoeffs = func() (s, c [14]dd) {
	for k := range s {
		sign := 1.0
		if k%2 == 1 {
			sign = -1
		}
		s[k] = invFact[2*k+1].mulF(sign)
		c[k] = invFact[2*k].mulF(sign)
	}
	return s, c
}()

// sinCosDD are sin r and cos r for |r| ≤ π/4 (r^27/27! < 1e-37).
func sinCosDD(r dd) (dd, dd) {
	r2 := r.mul(r)
	return series(r2, sinCoeffs[:]).mul(r), series(r2, cosCoeffs[:])
}

// sinCos are sin x and cos x in double-double; ok false when x is too
// large (or not finite) for the reduction.
func sinCos(x float64) (dd, dd, bool) {
	r, q, ok := reduceHalfPi(x)
	if !ok {
		return dd{}, dd{}, false
	}
	s, c := sinCosDD(r)
	switch q {
	case 1:
		s, c = c, s.neg()
	case 2:
		s, c = s.neg(), c.neg()
	case 3:
		s, c = c.neg(), s
	}
	return s, c, true
}

func crSin(x float64) float64 {
	if s, _, ok := sinCos(x); ok && x != 0 {
		return s.hi
	}
	return math.Sin(x)
}

func crCos(x float64) float64 {
	if _, c, ok := sinCos(x); ok {
		return c.hi
	}
	return math.Cos(x)
}

func crTan(x float64) float64 {
	if s, c, ok := sinCos(x); ok && x != 0 {
		return s.div(c).hi
	}
	return math.Tan(x)
}

// newtonAngle refines an angle t0 with f(t) = a·sin t + b·cos t - c → 0.
func newtonAngle(t0 float64, a, b, c float64) float64 {
	s, co, ok := sinCos(t0)
	if !ok {
		return t0
	}
	f := s.mulF(a).add(co.mulF(b)).sub(ddF(c))
	df := co.mulF(a).sub(s.mulF(b))
	if df.hi == 0 {
		return t0
	}
	return ddF(t0).sub(f.div(df)).hi
}

func crAtan(x float64) float64 {
	t := math.Atan(x)
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return t
	}
	return newtonAngle(t, 1, -x, 0) // sin t - x cos t = 0
}

func crAtan2(y, x float64) float64 {
	t := math.Atan2(y, x)
	if math.IsNaN(t) || x == 0 || y == 0 || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return t
	}
	return newtonAngle(t, x, -y, 0) // x sin t - y cos t = 0
}

func crAsin(x float64) float64 {
	t := math.Asin(x)
	if math.IsNaN(t) || x == 0 || math.Abs(x) >= 0.999 {
		return t
	}
	return newtonAngle(t, 1, 0, x)
}

func crAcos(x float64) float64 {
	t := math.Acos(x)
	if math.IsNaN(t) || math.Abs(x) >= 0.999 {
		return t
	}
	return newtonAngle(t, 0, 1, x)
}

func crCbrt(x float64) float64 {
	y := math.Cbrt(x)
	if math.IsNaN(y) || math.IsInf(y, 0) || y == 0 {
		return y
	}
	// y - (y³ - x) / (3y²), the cube exact in double-double.
	y2 := twoProd(y, y)
	y3 := y2.mulF(y)
	return ddF(y).sub(y3.sub(ddF(x)).div(y2.mulF(3))).hi
}

func crHypot(x, y float64) float64 {
	h := math.Hypot(x, y)
	if math.IsNaN(h) || math.IsInf(h, 0) || h == 0 || h > 1e150 || h < 1e-150 {
		return h
	}
	s := twoProd(x, x).add(twoProd(y, y))
	r := ddF(h)
	return r.add(s.sub(twoProd(h, h)).div(ddF(2 * h))).hi
}

// fdlibm's log10 (java.lang.StrictMath.log10) over a correctly rounded
// log: log10(x) = k·log10(2) + log(m)/ln(10) with the same splitting of
// the constants.
func fdlibmLog10(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return math.Log10(x)
	}
	const (
		ivln10    = 4.34294481903251816668e-01
		log10_2hi = 3.01029995663611771306e-01
		log10_2lo = 3.69423907715893078616e-13
	)
	bits := math.Float64bits(x)
	hx := int64(bits >> 32)
	k := int64(0)
	if hx < 0x00100000 { // subnormal: scale up
		x *= 1 << 54
		bits = math.Float64bits(x)
		hx = int64(bits >> 32)
		k = -54
	}
	k += (hx >> 20) - 1023
	i := (uint64(k) & 0x80000000) >> 31
	if k < 0 {
		i = 1
	}
	hx = (hx & 0x000fffff) | int64((0x3ff-i)<<20)
	y := float64(k + int64(i))
	x = math.Float64frombits(uint64(hx)<<32 | bits&0xffffffff)
	z := y*log10_2lo + ivln10*crLog(x)
	return z + y*log10_2hi
}

// fdlibm's sinh, cosh and tanh (StrictMath's) over expm1 and a correctly
// rounded exp.
func fdlibmSinh(x float64) float64 {
	ax := math.Abs(x)
	if math.IsNaN(x) || math.IsInf(x, 0) || ax > 709.78 {
		return math.Sinh(x)
	}
	h := 0.5
	if x < 0 {
		h = -h
	}
	if ax < 22 {
		if ax < 1.0/(1<<28) {
			return x
		}
		t := math.Expm1(ax)
		if ax < 1 {
			return h * (2.0*t - t*t/(t+1))
		}
		return h * (t + t/(t+1))
	}
	if ax < 709.78 {
		return h * crExp(ax)
	}
	w := crExp(0.5 * ax)
	return (h * w) * w
}

func fdlibmCosh(x float64) float64 {
	ax := math.Abs(x)
	if math.IsNaN(x) || math.IsInf(x, 0) || ax > 709.78 {
		return math.Cosh(x)
	}
	if ax < 0.5*math.Ln2 {
		t := math.Expm1(ax)
		w := 1 + t
		if ax < 1.0/(1<<55) {
			return w
		}
		return 1 + (t*t)/(w+w)
	}
	if ax < 22 {
		t := crExp(ax)
		return 0.5*t + 0.5/t
	}
	if ax < 709.78 {
		return 0.5 * crExp(ax)
	}
	w := crExp(0.5 * ax)
	return (0.5 * w) * w
}

func fdlibmTanh(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Tanh(x)
	}
	ax := math.Abs(x)
	var z float64
	switch {
	case ax >= 22:
		z = 1
	case ax < 1.0/(1<<55):
		return x * (1 + x)
	case ax >= 1:
		t := math.Expm1(2 * ax)
		z = 1 - 2/(t+2)
	default:
		t := math.Expm1(-2 * ax)
		z = -t / (t + 2)
	}
	return math.Copysign(z, x)
}
