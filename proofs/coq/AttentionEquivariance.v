(** * Permutation equivariance of softmax and attention in exact arithmetic
      (attention-equivariance-v1) *)
(** The real-number core of attention-equivariance-v1. Rows are lists; a permutation is
    [Permutation] from the standard library. The floating-point statements (bit-exact where the
    kernel performs the same operations, else within twice the derived bound) are argued in
    proofs/attention_equivariance.tex; here: the exact functions only depend on the multiset of
    keys, so permuting a row, the keys or the queries acts on the result by the same permutation. *)
From Coq Require Import Reals Lra List Sorting.Permutation.
Import ListNotations.
Open Scope R_scope.

Definition sum_list (l : list R) : R := fold_right Rplus 0 l.

Lemma sum_list_perm l l' : Permutation l l' -> sum_list l = sum_list l'.
Proof. induction 1; simpl; lra. Qed.

(** softmax of a row: every entry x becomes exp x / Z, Z = Σ exp of the row. *)
Definition partition_l (r : list R) : R := sum_list (map exp r).
Definition softmax_l (r : list R) : list R := map (fun x => exp x / partition_l r) r.

Lemma partition_perm r r' : Permutation r r' -> partition_l r = partition_l r'.
Proof. intros H. unfold partition_l. apply sum_list_perm, Permutation_map, H. Qed.

(** AEQ-EQV-001 (exact core): the softmax of a permuted row applies the unpermuted row's map
    x ↦ exp x / Z to each entry in place: softmax(Px) = P softmax(x). *)
Theorem softmax_perm r r' :
  Permutation r r' -> softmax_l r' = map (fun x => exp x / partition_l r) r'.
Proof. intros H. unfold softmax_l. rewrite (partition_perm r r' H). reflexivity. Qed.

(** AEQ-EQV-002 (exact core): row-wise softmax of a matrix whose rows are permuted (Forall2
    Permutation: each row of A' is a permutation of the row of A) — the column permutation acts
    in each row as in [softmax_perm]; a permutation of the rows is a reindexing of [map]. *)
Theorem softmax_rows_cols_perm (A A' : list (list R)) :
  Forall2 (@Permutation R) A A' ->
  Forall2 (fun r r' => softmax_l r' = map (fun x => exp x / partition_l r) r') A A'.
Proof. intros H. induction H; constructor; [apply softmax_perm; assumption | assumption]. Qed.

Lemma map_reindex {A B} (f : A -> B) (l : list A) (d : A) (idx : list nat) :
  map f (map (fun i => nth i l d) idx) = map (fun i => nth i (map f l) (f d)) idx.
Proof. rewrite map_map. apply map_ext. intros i. rewrite map_nth. reflexivity. Qed.

Corollary softmax_rows_perm (A : list (list R)) (d : list R) (idx : list nat) :
  map softmax_l (map (fun i => nth i A d) idx) = map (fun i => nth i (map softmax_l A) (softmax_l d)) idx.
Proof. apply map_reindex. Qed.

(** One attention output column for a query: keys of any type K with a score function (the
    query's dot products, scaled) and one value per key:
    attend = Σ_j exp(s_j) v_j / Σ_j exp(s_j) = Σ_j softmax(s)_j v_j. *)
Section Attention.
Variable K : Type.

Definition attend (score : K -> R) (kv : list (K * R)) : R :=
  sum_list (map (fun p => exp (score (fst p)) * snd p) kv) / sum_list (map (fun p => exp (score (fst p))) kv).

(** AEQ-EQV-004 (exact core): permuting keys and values together leaves the output unchanged. *)
Theorem attention_key_perm score kv kv' : Permutation kv kv' -> attend score kv = attend score kv'.
Proof.
  intros H. unfold attend.
  rewrite (sum_list_perm _ _ (Permutation_map (fun p => exp (score (fst p)) * snd p) H)).
  rewrite (sum_list_perm _ _ (Permutation_map (fun p => exp (score (fst p))) H)).
  reflexivity.
Qed.

(** Z(Q, K, V): one output per query, each computed from its query and all keys. *)
Variable Q : Type.
Definition attention (score : Q -> K -> R) (qs : list Q) (kv : list (K * R)) : list R :=
  map (fun q => attend (score q) kv) qs.

(** AEQ-EQV-003 (exact core): any reindexing of the queries (a permutation in particular)
    reindexes the outputs the same way: Z(PQ) = P Z(Q). *)
Theorem attention_query_perm score qs kv (q0 : Q) (idx : list nat) :
  attention score (map (fun i => nth i qs q0) idx) kv
  = map (fun i => nth i (attention score qs kv) (attend (score q0) kv)) idx.
Proof. unfold attention. apply (map_reindex (fun q => attend (score q) kv)). Qed.
End Attention.

(** AEQ-EQV-005 (exact core): self-attention, tokens x with a query/key/value reading of each
    (q x, k x, v x — a row-wise projection). Permuting the tokens: every output is computed by
    the same map as before, applied to the permuted tokens, i.e. Z(PX) = P Z(X). *)
Theorem self_attention_equivariant {X} (score : X -> X -> R) (v : X -> R) (xs xs' : list X) :
  Permutation xs xs' ->
  map (fun x => attend X (score x) (map (fun y => (y, v y)) xs')) xs'
  = map (fun x => attend X (score x) (map (fun y => (y, v y)) xs)) xs'.
Proof.
  intros H. apply map_ext. intros x. symmetry. apply attention_key_perm, Permutation_map, H.
Qed.
