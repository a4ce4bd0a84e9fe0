import { Navigate, Route, Routes } from 'react-router';
import { useSession } from './api/session';
import { Layout } from './components/Layout';
import { RequireSession } from './components/RequireSession';
import { NotFound } from './pages/NotFound';
import { Overview } from './pages/Overview';
import { OperatorSignIn, SignIn } from './pages/SignIn';
import { SignUp } from './pages/SignUp';

/** Signed-out pages: a signed-in visitor goes to the overview. */
function SignedOut({ children }: { children: React.ReactNode }) {
  const { data: session, isPending } = useSession();
  if (isPending) return <p role="status">Loading…</p>;
  if (session !== null && session !== undefined) return <Navigate to="/" replace />;
  return <>{children}</>;
}

export function App() {
  return (
    <Routes>
      <Route
        path="/sign-in"
        element={
          <SignedOut>
            <SignIn />
          </SignedOut>
        }
      />
      <Route
        path="/sign-up"
        element={
          <SignedOut>
            <SignUp />
          </SignedOut>
        }
      />
      <Route
        path="/operator-sign-in"
        element={
          <SignedOut>
            <OperatorSignIn />
          </SignedOut>
        }
      />
      <Route
        element={
          <RequireSession>
            <Layout />
          </RequireSession>
        }
      >
        <Route index element={<Overview />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
