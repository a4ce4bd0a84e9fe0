import { monthsOf, payoutsCsv } from '../../src/api/owed';

// What a platform owes, by month and as CSV (#32): the sums an accountant would make.

const line = (period: string, kind: 'fee' | 'royalty', amount: number, licenseId = 'lic_1') => ({
  kind,
  license_id: licenseId,
  period,
  amount,
  due_date: `${period}-28T00:00:00.000Z`,
  recipient: 'plat_owner',
});

describe('what a platform owes (#32)', () => {
  it('when fees and royalties of several months are unpaid, then each month sums them in cents, newest first', () => {
    const months = monthsOf([
      line('2026-10', 'fee', 0.1),
      line('2026-11', 'fee', 0.1),
      line('2026-11', 'royalty', 0.2),
      line('2026-11', 'fee', 5, 'lic_2'),
    ]);
    expect(months).toEqual([
      { period: '2026-11', fees: 5.1, royalties: 0.2, total: 5.3, due: '2026-11-28T00:00:00.000Z' },
      { period: '2026-10', fees: 0.1, royalties: 0, total: 0.1, due: '2026-10-28T00:00:00.000Z' },
    ]);
  });

  it('when the lines are downloaded, then the CSV has one row per line with two decimals, and a comma in a name is quoted', () => {
    const csv = payoutsCsv(
      [line('2026-11', 'royalty', 12.5), line('2026-10', 'fee', 3)],
      'USD',
      () => 'Lovelace, Ada',
    );
    expect(csv.split('\r\n')).toEqual([
      'period,kind,license_id,identity,recipient,amount,currency,due_date',
      '2026-10,fee,lic_1,"Lovelace, Ada",plat_owner,3.00,USD,2026-10-28T00:00:00.000Z',
      '2026-11,royalty,lic_1,"Lovelace, Ada",plat_owner,12.50,USD,2026-11-28T00:00:00.000Z',
      '',
    ]);
  });
});
