// Package sparktype is Sluice's one copy of Spark's type rules, the lattice
// that JSON inference, frame concatenation, SQL assignment and the printers
// share (see docs/inference.md):
//
//   - Kind and Widen: the types JSON inference produces and how two of them
//     merge (Spark's JsonInferSchema.compatibleType over
//     TypeCoercion.findTightestCommonType), with Fits for "a value of this
//     type leaves the column's type unchanged".
//   - Common: the same merge over Arrow types (MergeSchemas, Concat).
//   - Assignable: whether a value of one type may be stored into a column of
//     another without a cast that changes values (INSERT, writes).
//   - Name, TypeName, ParseType, SchemaString: Spark's simpleString, typeName,
//     DDL type names and printSchema text.
//   - Compare: Spark's field-name order (Java String.compareTo: UTF-16 code
//     units).
//   - ParseTimestamp: the one list of timestamp text forms Sluice reads.
//   - ParseDecimal: integer text beyond int64 as an Arrow decimal128.
//   - DayTimeIntervalType, YearMonthIntervalType, CalendarIntervalType:
//     Spark's interval types, their fields, text and arithmetic on dates
//     (docs/sql.md#intervals).
//
// Arrow types are the currency: a Spark type is the Arrow type Sluice stores
// it as (long = int64, timestamp = TimestampType, decimal(p,s) = decimal128).
package sparktype
