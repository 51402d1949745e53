-- Warnings of a processed template design (contract PassTemplateProcessingWarning): colours under
-- the WCAG 2 AA contrast minimum. Null when there are none.
ALTER TABLE "pass_templates" ADD COLUMN     "processing_warnings" JSONB;
