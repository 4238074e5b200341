// Package gotabridge converts frames to gota DataFrames and back: struct
// fields become dotted columns, lists JSON text, and FromGota restores them
// with the schema. gota holds every row, so both directions work on
// materialised frames (see docs/frames.md#gota).
//
//	df, err := gotabridge.ToGota(f)
//	back, err := gotabridge.FromGota(df, f.Schema())
package gotabridge
