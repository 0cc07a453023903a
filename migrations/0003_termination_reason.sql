-- Why an ended run ended (`plan_rejected`, a cancel's reason, `success`, …), so the run list can tell a
-- rejected plan from a cancelled run. Null while a run is live and for rows written before this column.
ALTER TABLE runs ADD COLUMN termination_reason TEXT;
