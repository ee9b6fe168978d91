"""Findings: the problems lint (and later diff and drift) report, each with a stable code.

The code table is the single place a code's severity, title and default fix hint live; docs/lint-codes.md
is generated from it (see `tests/test_docs.py`), so the documentation cannot drift from the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Code:
    code: str
    severity: Severity
    title: str
    hint: str


_CODES = [
    # files and documents: nothing can be checked until these are fixed
    Code("DCB001", "error", "File cannot be read", "Check the path and that the file is readable UTF-8 text."),
    Code("DCB002", "error", "Not valid YAML", "Fix the YAML syntax at the line shown; indent with spaces, not tabs."),
    Code("DCB003", "error", "Duplicate key", "Remove or rename one of the two keys; YAML keeps only the last one."),
    Code("DCB004", "error", "Not a contract document", "A contract is a YAML mapping with `dataContractSpecification:` (DCS) or `apiVersion:` and `kind: DataContract` (ODCS)."),
    Code("DCB005", "error", "Unsupported specification version", "Use DCS 1.0-1.2 or ODCS v3.0.x, v3.1.x, v3.2.x."),
    Code("DCB006", "error", "File too large", "Split the contract, or raise the limit with DC_BRIDGE_MAX_CONTRACT_BYTES."),
    # schema and shape
    Code("DCB100", "error", "Does not match the official JSON schema",
         "Fix the key or value so it matches the standard. `compile` and `run` go on: nothing dc-bridge checks depends on it, "
         "unless the message says it reads it (then the check runs as written); what would change a check is DCB101 or DCB104."),
    Code("DCB101", "error", "Wrong type for a field dc-bridge uses", "Give the field a value of the expected type; it changes what runs."),
    Code("DCB102", "error", "Missing required field", "Add the field."),
    Code("DCB103", "error", "Duplicate name", "Give each model and field a unique name within its parent."),
    Code("DCB104", "error", "Unknown key that would change what runs",
         "Spell the key as the standard does (see the message); as written, dc-bridge ignores it and the check it names "
         "would not run, so `run` refuses the contract."),
    Code("DCB105", "error", "YAML read a value as another type",
         "Quote the value (`'NO'`, `'010'`, `'1:20'`): YAML 1.1 reads unquoted yes/no/on/off as booleans, numbers with a leading 0 as octal, a:b as base 60, and any plain number as a number, not text."),
    Code("DCB106", "warning", "Library rule dc-bridge cannot run",
         "Use a library metric with the arguments it needs (nullValues, missingValues, invalidValues with validValues or pattern, duplicateValues, rowCount) or a sql rule; as written the rule is `not_executable` and checks nothing."),
    Code("DCB110", "error", "Unknown logical type", "Use one of the types of the standard (see docs/lint-codes.md)."),
    Code("DCB111", "warning", "Unknown format", "Use one of email, uri, uuid, date, date-time, ipv4, ipv6, or write a pattern."),
    Code("DCB112", "warning", "Unknown quality dimension", "Use one of the ODCS dimensions: accuracy, completeness, conformity, consistency, coverage, timeliness, uniqueness."),
    Code("DCB113", "warning", "Logical and physical types contradict",
         "Make the two types say one thing (`logicalType: integer` with `physicalType: INT64`), or drop the wrong one: no column has both types, so its type check always fails."),
    Code("DCB114", "info", "Physical type not checked",
         "Write the physical type as Spark names it (`bigint`, `decimal(10,2)`, `array<string>`) to have it checked; until then only the logical type is."),
    # references, ids, imports
    Code("DCB120", "error", "Unresolved $ref", "Point `$ref` at an existing definition, e.g. `#/definitions/order_id` or `other.yaml#/definitions/x`."),
    Code("DCB121", "error", "Referenced file not found", "Check the file name; it is resolved relative to the contract that references it."),
    Code("DCB122", "error", "Reference or import cycle", "Break the cycle: a file may not (indirectly) import or reference itself."),
    Code("DCB123", "error", "Unresolved import", "Point the import at an existing item, e.g. `common-rules.yaml#quality.<rule id>`."),
    Code("DCB124", "error", "Duplicate id", "Ids must be unique within their section; rename one."),
    Code("DCB125", "error", "Unresolved reference", "Reference an existing model and field: `model.field` or `schema.<object id>.properties.<property id>`."),
    Code("DCB126", "error", "Foreign key columns do not pair up", "`from` and `to` must both be single references or lists of equal length."),
    Code("DCB127", "error", "Import content does not fit its place", "On a property, import quality rules (`#quality.<id>`); on a schema object, import properties (`#properties.<id>` or `#schema.<id>.properties.<id>`)."),
    # constraints and quality rules
    Code("DCB140", "error", "Invalid regular expression", "Write a pattern that compiles in Java (Spark evaluates it with java.util.regex)."),
    Code("DCB141", "warning", "Regular expression not verified with Java", "Install Java 17 so lint can compile patterns the way Spark does."),
    Code("DCB142", "warning", "Regular expression can backtrack catastrophically", "Let each character be matched one way only: write `(a+)+` as `a+` and `.*.*` or `\\d+\\d*` as one repetition, make a repetition possessive (`a++`) or atomic (`(?>...)`), or bound it (`{1,64}`); run with --timeout."),
    Code("DCB150", "error", "Invalid duration", "Use ISO 8601 (`PT24H`, `P1D`) or a simple duration (`25h`, `30d`, `1 year`)."),
    Code("DCB151", "error", "Number no engine can run",
         "Write a number inside the range shown as expected; to leave a threshold or bound open, leave its key out instead of writing `.inf`."),
    Code("DCB160", "error", "Threshold can never hold", "Put the smaller bound first and make sure the range is not empty."),
    Code("DCB161", "error", "Missing or ambiguous threshold", "Give exactly one of mustBe, mustNotBe, mustBeGreaterThan, ..., mustBeBetween."),
    Code("DCB162", "info", "ODCS mustBeBetween is exclusive", "ODCS defines mustBeBetween as mustBeGreaterThan and mustBeLessThan (bounds excluded); use mustBeGreaterOrEqualTo/mustBeLessOrEqualTo to include them."),
    Code("DCB163", "error", "Unknown library metric", "Use nullValues, missingValues, invalidValues, duplicateValues or rowCount (or the older rule names nullCheck, duplicateCount, validValues, rowCount)."),
    Code("DCB164", "error", "Constraint bounds can never hold", "Make the minimum not larger than the maximum."),
    Code("DCB165", "warning", "Constraint does not fit the field type", "Length and pattern constraints apply to strings, ranges to numbers and dates."),
    Code("DCB166", "error", "Example breaks the contract's own rule",
         "Correct the example, or the rule if the example is right: a contract should not show a value its own checks reject. `compile` and `run` go on, as examples change nothing that runs."),
    Code("DCB167", "info", "Example not checked",
         "Nothing to change for dc-bridge: lint could not judge the example without Java (the message says why); check it by eye, or by `dc-bridge run` on data that holds it."),
    Code("DCB170", "error", "Quality SQL is not one read-only SELECT", "Write a single SELECT (or WITH ... SELECT) over the contract's models with Spark's built-in functions; dc-bridge never runs DDL, DML or commands, nor reads files, other tables or user functions."),
    Code("DCB171", "error", "Quality SQL does not parse", "Fix the SQL syntax (Spark SQL)."),
    Code("DCB172", "error", "Unknown SQL placeholder", "Use {model}, {table}, {field}, {column}, {object}, {property} or the same with `$` in front."),
    Code("DCB173", "error", "Name Spark would fill in",
         "Rename the model or field (or its physical name) without `${`; Spark replaces `${...}` in SQL before parsing it, also inside quoted names."),
    Code("DCB174", "error", "Unresolved variable",
         "Pass `--var NAME=VALUE` (or `vars=` to dc_bridge.run), set the environment variable, or give a default: `${NAME:-value}`; `$${NAME}` is the text itself."),
    Code("DCB175", "warning", "Quality SQL names a column the model does not declare",
         "Fix the name if it is misspelt (see the \"did you mean\"), or declare the column in the model; if the data does not "
         "have it either, Spark fails the check when it runs."),
    Code("DCB176", "warning", "Variable default cut at a brace",
         "A default ends at its first `}` (as POSIX `${NAME:-default}` does) and there is no escape for it: pass the value with "
         "`--var NAME=VALUE` or the environment, or write the default without braces (`[A-Z][A-Z]` for `[A-Z]{2}`)."),
    Code("DCB180", "error", "Unknown custom engine", "Use `engine: great-expectations` or `engine: soda`."),
    Code("DCB181", "error", "Unknown Great Expectations expectation type", "Use a GX 1.x expectation type such as expect_column_values_to_not_be_null."),
    Code("DCB182", "warning", "camelCase GX argument", "Write GX kwargs in snake_case (min_value, not minValue); dc-bridge maps them for you."),
    Code("DCB183", "error", "Custom check has no implementation", "Give `implementation` (ODCS) or `specification` (DCS)."),
    Code("DCB184", "error", "Invalid SodaCL", "Write the SodaCL as a mapping or YAML text that parses."),
    Code("DCB185", "warning", "GX 0.x expectation spelling", "Write `type:` (GX 1.x) instead of `expectation_type:`; dc-bridge maps it for you."),
    # service levels
    Code("DCB190", "error", "Time-based SLA on a column that holds no time",
         "Measure freshness, latency, retention, frequency and timeOfAvailability on a date or timestamp column (timeOfAvailability: a timestamp)."),
    # contract evolution (`dc-bridge diff`, `check-version`): breaking changes (MAJOR) are warnings,
    # non-breaking (MINOR) and patch changes info; whether a change is allowed is check-version's call
    Code("DCB200", "warning", "Model removed", "Keep the model, or bump the MAJOR version and tell its consumers first."),
    Code("DCB201", "warning", "Field removed", "Keep the field (deprecate it in its description), or bump the MAJOR version."),
    Code("DCB202", "warning", "Type changed incompatibly", "Change a type only along a safe widening (docs/evolution.md), or bump the MAJOR version."),
    Code("DCB203", "warning", "Field made required", "Add the field as optional first, or bump the MAJOR version: data without it now fails."),
    Code("DCB204", "warning", "Constraint tightened", "Data that passed before may fail now; bump the MAJOR version or keep the old constraint."),
    Code("DCB205", "warning", "Quality rule tightened", "Data that passed before may fail now; bump the MAJOR version or keep the old threshold."),
    Code("DCB206", "warning", "Service level relaxed", "Consumers were promised the old service level; bump the MAJOR version or keep it."),
    Code("DCB207", "warning", "Classification or PII marking removed", "Consumers rely on the marking to protect the data; restore it, or bump the MAJOR version."),
    Code("DCB208", "warning", "Data moved or renamed", "Consumers read the data by this name or location; keep it, or bump the MAJOR version."),
    Code("DCB210", "info", "Model, optional field or server added", "Needs at least a MINOR version bump."),
    Code("DCB211", "info", "Type widened safely", "Needs at least a MINOR version bump."),
    Code("DCB212", "info", "Field made optional", "Needs at least a MINOR version bump; consumers must now expect nulls."),
    Code("DCB213", "info", "Constraint relaxed", "Needs at least a MINOR version bump."),
    Code("DCB214", "info", "Quality rule relaxed or removed", "Needs at least a MINOR version bump."),
    Code("DCB215", "info", "Service level strengthened", "Needs at least a MINOR version bump."),
    Code("DCB216", "info", "Classification or PII marking added", "Needs at least a MINOR version bump."),
    Code("DCB220", "info", "Documentation changed", "Needs at least a PATCH version bump."),
    Code("DCB230", "error", "Version bump too small", "Bump the version as the message says: MAJOR for breaking changes, MINOR for non-breaking ones, PATCH for documentation."),
    Code("DCB231", "error", "Not a semantic version", "Write the version as MAJOR.MINOR.PATCH (e.g. `version: 1.4.0`; quote it if YAML would read a number)."),
    Code("DCB232", "error", "Old version not found in git", "Name a revision and a path committed at it, e.g. `main:contracts/orders.yaml`, and run inside the repository."),
    # inheritance (`x-dc-bridge-extends`): a child may tighten its parents, never loosen them
    Code("DCB240", "error", "Service level weaker than a parent's", "Keep the parent's service level or make it stricter."),
    Code("DCB241", "error", "Quality rule weaker than a parent's", "Keep the parent's threshold and severity or make them stricter."),
    Code("DCB242", "error", "Classification weaker than a parent's", "Keep the parent's classification and PII marking, or raise them."),
    Code("DCB243", "error", "Required field made optional", "Keep `required: true` on fields the parent requires."),
    Code("DCB244", "error", "Parent contract not found", "Fix the path in `x-dc-bridge-extends`; it is relative to the contract that names it."),
    Code("DCB245", "error", "Inheritance cycle", "Remove one `x-dc-bridge-extends` entry of the cycle: a contract cannot be its own ancestor."),
    # schema drift (`dc-bridge drift`): the contract against the DataFrame's actual Spark schema
    Code("DCB300", "error", "Column missing from the data", "Add the column to the data, or remove the field from the contract (a breaking change)."),
    Code("DCB301", "error", "Column type differs from the contract", "Cast the column to the contract's type, or change the contract's type."),
    Code("DCB302", "info", "Column not in the contract", "Describe the column in the contract, or drop it from the data (`--strict` makes this an error)."),
    Code("DCB303", "info", "No data to compare", "Pass --data MODEL=PATH (or a server) for the model to check its schema."),
    Code("DCB304", "info", "Table does not exist yet", "Nothing to fix before the first run creates the table; check that the namespace and the model's physical name are the table's."),
]

CODES: dict[str, Code] = {c.code: c for c in _CODES}
# errors of conformance alone: the official schema rejects the contract, or an example breaks the contract's own
# rules (DCB166), so lint fails (exit 1), but nothing that runs depends on it (a key it would read is DCB104, a value
# it would read DCB101), so compile and run go on
CONFORMANCE_CODES: frozenset[str] = frozenset({"DCB100", "DCB166"})


@dataclass(frozen=True)
class Finding:
    """One problem at one place. `expected`/`found` are short human phrases, not Python reprs."""

    code: str
    file: str
    path: str
    message: str
    line: int | None = None
    expected: str | None = None
    found: str | None = None
    hint: str | None = None
    severity: Severity | None = None

    @property
    def level(self) -> Severity:
        return self.severity or CODES[self.code].severity

    @property
    def fix(self) -> str:
        return self.hint or CODES[self.code].hint

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "severity": self.level,
            "file": self.file,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "expected": self.expected,
            "found": self.found,
            "hint": self.fix,
        }


class FatalFinding(Exception):
    """Raised when a file cannot be read at all; carries the finding to report."""

    def __init__(self, finding: Finding):
        super().__init__(finding.message)
        self.finding = finding
