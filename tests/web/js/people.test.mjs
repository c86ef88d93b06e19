// The people values (apps/web/js/people/values.js): one place for roles, statuses, member
// roles and sign-in error sentences, and the small rules the views read.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BUDGET_PERIODS, MEMBER_ROLES, ROLES, STATUSES, budgetBody, canEdit, inviteToken, isOwner, label,
  signinErrorMessage, spendText,
} from "../../../apps/web/js/people/values.js";

test("every set names each value once, with a label", () => {
  for (const values of [ROLES, STATUSES, MEMBER_ROLES]) {
    assert.equal(new Set(values.map((v) => v.value)).size, values.length);
    assert.ok(values.every((v) => v.label));
    assert.ok(Object.isFrozen(values));
  }
  assert.deepEqual(ROLES.map((r) => r.value).sort(), ["admin", "member"]);
  assert.deepEqual(STATUSES.map((s) => s.value).sort(), ["active", "disabled", "pending"]);
  assert.deepEqual(MEMBER_ROLES.map((r) => r.value).sort(), ["editor", "viewer"]);
  assert.equal(label(STATUSES, "pending"), "Pending approval");
  assert.equal(label(STATUSES, "unknown"), "unknown");
});

test("each sign-in error code has its own sentence; an unknown code still says so", () => {
  const codes = ["state", "denied", "provider", "token", "domain", "refused", "pending", "disabled", "busy"];
  const sentences = codes.map(signinErrorMessage);
  assert.equal(new Set(sentences).size, codes.length);
  assert.match(signinErrorMessage("pending"), /approval/);
  assert.match(signinErrorMessage("brand_new"), /\(brand_new\)/);
  assert.equal(signinErrorMessage(null), "");
  assert.equal(signinErrorMessage(""), "");
});

test("a room's access decides editing and owning; a room without access is the caller's", () => {
  assert.equal(canEdit({ access: "viewer" }), false);
  assert.equal(canEdit({ access: "editor" }), true);
  assert.equal(canEdit({ access: "owner" }), true);
  assert.equal(canEdit({}), true); // local mode and older servers: every room is yours
  assert.equal(isOwner({ access: "editor" }), false);
  assert.equal(isOwner({ access: "owner" }), true);
  assert.equal(isOwner({}), true);
});

test("the invitation token comes from /invite/<token> only", () => {
  assert.equal(inviteToken("/invite/abc-DEF_123"), "abc-DEF_123");
  assert.equal(inviteToken("/invite/abc/"), "abc");
  assert.equal(inviteToken("/invite/"), null);
  assert.equal(inviteToken("/invite/a/b"), null);
  assert.equal(inviteToken("/"), null);
  assert.equal(inviteToken("/x/invite/abc"), null);
});

test("a budget form becomes the PUT body; nothing set or a bad amount is refused", () => {
  assert.deepEqual(budgetBody({ daily_usd: "5", monthly_usd: "", room_id: "" }), { daily_usd: 5 });
  assert.deepEqual(budgetBody({ daily_usd: " 0 ", monthly_usd: "50.5", room_id: " r1 " }),
    { daily_usd: 0, monthly_usd: 50.5, room_id: "r1" });
  assert.throws(() => budgetBody({ daily_usd: "", monthly_usd: "  " }), /daily or a monthly/);
  assert.throws(() => budgetBody({ daily_usd: "-1" }), /Daily limit/);
  assert.throws(() => budgetBody({ monthly_usd: "lots" }), /Monthly limit/);
  assert.deepEqual(BUDGET_PERIODS.map((p) => p.value), ["day", "month"]);
  assert.equal(spendText({ period: "day", spent_usd: 1.2, limit_usd: 5 }), "Daily: $1.20 of $5.00 spent");
  assert.equal(spendText({ period: "month", spent_usd: 0, limit_usd: 50 }), "Monthly: $0.00 of $50.00 spent");
});
