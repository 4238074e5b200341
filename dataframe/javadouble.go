package dataframe

// JavaDouble formats f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) does, which is how Spark prints doubles and
// floats: "1.0", "0.001", "1.0E7", "3.14E-8", "NaN", "-Infinity". The
// table printer and the Spark golden-file runner share it
// (docs/sql.md#spark-compatibility).
func JavaDouble(f float64, bits int) string { return javaDouble(f, bits) }
