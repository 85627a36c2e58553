// The part of Node's built-in `node:sqlite` (Node >= 22.13 without a flag) the sqlite store
// uses. The repository's @types/node is the Node 20 one, which has no such module; these
// signatures follow the Node 22 documentation (https://nodejs.org/docs/latest-v22.x/api/sqlite.html).
declare module 'node:sqlite' {
  type SQLInputValue = null | number | bigint | string | Uint8Array;
  type SQLOutputValue = null | number | bigint | string | Uint8Array;

  interface DatabaseSyncOptions {
    open?: boolean;
    readOnly?: boolean;
    enableForeignKeyConstraints?: boolean;
    /** The busy timeout in milliseconds. */
    timeout?: number;
  }

  interface StatementResultingChanges {
    changes: number | bigint;
    lastInsertRowid: number | bigint;
  }

  class StatementSync {
    all(...parameters: SQLInputValue[]): Array<Record<string, SQLOutputValue>>;
    get(...parameters: SQLInputValue[]): Record<string, SQLOutputValue> | undefined;
    run(...parameters: SQLInputValue[]): StatementResultingChanges;
  }

  class DatabaseSync {
    constructor(path: string, options?: DatabaseSyncOptions);
    readonly isOpen: boolean;
    readonly isTransaction: boolean;
    close(): void;
    exec(sql: string): void;
    prepare(sql: string): StatementSync;
  }
}
