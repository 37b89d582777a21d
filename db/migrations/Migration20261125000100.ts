import { Migration } from '@mikro-orm/migrations';

/**
 * When a store's paid plan ends (set by the operator's `store plan --until`). Kept after the plan-end
 * workflow falls the store back to free, so the dashboard can say when the paid plan ended; null for a
 * plan that does not end. Reads apply it themselves (domain/plan.ts), so a late timer changes nothing.
 */
export class Migration20261125000100 extends Migration {
  override name = 'Migration20261125000100';

  override async up(): Promise<void> {
    this.addSql(`alter table stores add column paid_until timestamptz null`);
  }
}
