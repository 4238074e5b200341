// Package connectortest is the conformance suite every Sluice connector
// runs, in the shape of River's riverdrivertest: a connector package calls
// Run from one of its tests with a Harness that knows how to make datasets
// for it, and gets the same checks as every other connector — registration,
// stable schemas, error wrapping without secrets, writes that round-trip or
// report per-row results, property validation, context cancellation.
//
//	func TestConformance(t *testing.T) {
//		connectortest.Run(t, "PARQUET", connectortest.Harness{
//			NewDataset: func(t *testing.T) connectortest.Case {
//				dir := t.TempDir()
//				return connectortest.Case{
//					Dataset:   &connectors.Dataset{Name: "t", Props: connectors.Props{"svc.parquet.path": dir + "/"}},
//					Want:      frame, // written, then read back
//					RoundTrip: true,
//				}
//			},
//			BadProps: []connectortest.BadProps{{Props: connectors.Props{"svc.parquet.mode": "sideways"}, Property: "svc.parquet.mode"}},
//		})
//	}
package connectortest
