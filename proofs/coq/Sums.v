(** * Finite sums over 0..n-1 of real-valued functions on nat, and their basic facts *)
From Coq Require Import Reals Lia Lra.
Open Scope R_scope.

(** [sum n f] = f 0 + ... + f (n-1). *)
Fixpoint sum (n : nat) (f : nat -> R) : R :=
  match n with O => 0 | S k => sum k f + f k end.
