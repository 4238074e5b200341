package fileio

import (
	"bytes"
	"sync"

	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Arrow v17's zstd and gzip codecs build a new encoder for every Parquet
// page they compress: for zstd that is megabytes of tables per page (a
// gigabyte of garbage for 20 MB of JSON). These replacements keep one zstd
// encoder per level (EncodeAll is safe for concurrent use) and pool gzip
// writers; snappy pages are compressed with klauspost's S2 encoder in its
// Snappy-compatible mode (faster than golang/snappy's, same block format,
// any Snappy decoder reads it). The bytes they produce are the same formats.
// Decoding is left to Arrow's codecs, which already share their decoders.
//
// Arrow looks codecs up in one process-wide registry, so installing them
// changes every Parquet writer in the process: that is the caller's
// explicit choice (the sluice binary makes it in main), never a side effect
// of importing this package. See docs/frames.md#parquet.

var fastCodecsOnce sync.Once

// UseFastParquetCodecs registers the cached zstd and pooled gzip encoders
// in Arrow's codec registry for the whole process. It is safe to call more
// than once, but Arrow's registry is not synchronised: call it at start-up,
// before any Parquet is written or read (the sluice binary calls it first
// thing in main).
func UseFastParquetCodecs() {
	fastCodecsOnce.Do(func() {
		if z, err := compress.GetCodec(compress.Codecs.Zstd); err == nil {
			compress.RegisterCodec(compress.Codecs.Zstd, &cachedZstd{Codec: z})
		}
		if g, err := compress.GetCodec(compress.Codecs.Gzip); err == nil {
			compress.RegisterCodec(compress.Codecs.Gzip, &pooledGzip{Codec: g})
		}
		if sn, err := compress.GetCodec(compress.Codecs.Snappy); err == nil {
			compress.RegisterCodec(compress.Codecs.Snappy, s2Snappy{Codec: sn})
		}
	})
}

// s2Snappy encodes Snappy blocks with S2's Snappy-compatible encoder.
type s2Snappy struct{ compress.Codec }

func (s2Snappy) Encode(dst, src []byte) []byte { return s2.EncodeSnappy(dst, src) }

func (s2Snappy) EncodeLevel(dst, src []byte, _ int) []byte { return s2.EncodeSnappy(dst, src) }

func (s2Snappy) CompressBound(n int64) int64 {
	if m := s2.MaxEncodedLen(int(n)); m >= 0 {
		return int64(m)
	}
	return n + n/6 + 32 // beyond S2's block limit: snappy's own bound
}

type cachedZstd struct {
	compress.Codec
	encoders sync.Map // level → *zstd.Encoder
}

func (c *cachedZstd) encoder(level int) *zstd.Encoder {
	if e, ok := c.encoders.Load(level); ok {
		return e.(*zstd.Encoder)
	}
	el := zstd.SpeedDefault
	if level != compress.DefaultCompressionLevel {
		el = zstd.EncoderLevelFromZstd(level)
	}
	e, err := zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(el))
	if err != nil {
		panic(err) // only for invalid options, which these are not
	}
	actual, _ := c.encoders.LoadOrStore(level, e)
	return actual.(*zstd.Encoder)
}

func (c *cachedZstd) Encode(dst, src []byte) []byte {
	return c.encoder(compress.DefaultCompressionLevel).EncodeAll(src, dst[:0])
}

func (c *cachedZstd) EncodeLevel(dst, src []byte, level int) []byte {
	return c.encoder(level).EncodeAll(src, dst[:0])
}

type pooledGzip struct {
	compress.Codec
	pools sync.Map // level → *sync.Pool of *gzip.Writer
}

func (g *pooledGzip) Encode(dst, src []byte) []byte {
	return g.EncodeLevel(dst, src, gzip.DefaultCompression)
}

func (g *pooledGzip) EncodeLevel(dst, src []byte, level int) []byte {
	if level == compress.DefaultCompressionLevel {
		level = gzip.DefaultCompression
	}
	p, _ := g.pools.LoadOrStore(level, &sync.Pool{})
	pool := p.(*sync.Pool)
	buf := bytes.NewBuffer(dst[:0])
	w, _ := pool.Get().(*gzip.Writer)
	if w == nil {
		var err error
		if w, err = gzip.NewWriterLevel(buf, level); err != nil {
			panic(err) // an invalid level: Arrow's codec panics the same way
		}
	} else {
		w.Reset(buf)
	}
	if _, err := w.Write(src); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	pool.Put(w)
	return buf.Bytes()
}
