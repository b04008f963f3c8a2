-- A record's values side by side, with the values themselves (issue 30): the primary key's index
-- holds (record, field, position) only, so reading a record's values or probing one of them went to
-- the table once per value, and the table keeps values in the order they were written (a record's
-- five values on five pages when they were written field by field). A page of 50 records then read
-- some 800 pages of a million-record database for its values alone; from this index it reads one or
-- two per record. `valuesJson` (every read of records with their values) and the query's filter
-- probes are served by it without touching the table.
CREATE INDEX record_values_record ON record_values (record_id, field_definition_id, position, value_text, value_number);
