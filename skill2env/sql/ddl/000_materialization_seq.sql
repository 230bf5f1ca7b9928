-- Grain: one number per committed write; orders materializations without trusting clocks.
CREATE SEQUENCE IF NOT EXISTS materialization_seq START 1;
