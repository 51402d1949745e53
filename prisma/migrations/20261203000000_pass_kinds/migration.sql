-- Pass kinds beyond PassEntry's five (the contract's TemplateKind): coupon (Apple coupon, Google
-- offer) and giftCard (Apple storeCard, Google gift card); and the kind's own design members
-- (event, offer and gift card details), null where a template has none.
ALTER TYPE "pass_template_type" ADD VALUE 'coupon';
ALTER TYPE "pass_template_type" ADD VALUE 'giftCard';

ALTER TABLE "pass_templates" ADD COLUMN     "type_details" JSONB;
